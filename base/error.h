#pragma once
// pdx's error model (ARCHITECTURE.md, "Error model"):
//  - recoverable failures come back as values (Result<T>, HostResult);
//  - fatal ones are thrown as one of these and caught in main(), which prints
//    "pdx: error: <what>" on one line and exits with the status below.
#include <stdexcept>
#include <string>

namespace pdx {

/// Exit statuses documented in pdx(1).
enum ExitStatus : int {
  kExitOk = 0,
  kExitFailure = 1,       // a local operation failed (file, archive, ...)
  kExitUsage = 2,         // bad command line or bad input named on it
  kExitBrokenPipe = 141,  // 128 + SIGPIPE: stdout's reader went away (`pdx ... | head`)
  kExitUnreachable = 255  // a host could not be reached, authenticated, or timed out
};

/// Bad command line or input: main prints it and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Anything else that ends the run: main prints it and exits 1.
struct FatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pdx
