#pragma once
// What every subcommand does the same way, pdx-agent's too: parse with CLI11, and on --help / a
// usage error print and tell the caller which exit status to return; end the run on a failed
// Result; and a main()'s last word on an error that ended the run.
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/error.h"
#include "base/result.h"

namespace pdx {

/// Parse argv into app. Returns nullopt when the subcommand should go on; otherwise the exit
/// status to return at once: 0 after --help/--version, 2 after a usage error, which is printed as
/// one line "pdx: error: ..." followed by "Try 'pdx [SUB] --help'".
std::optional<int> parse_cli(CLI::App& app, int argc, char** argv);

/// Ends the run with the error: as a UsageError (exit 2) for ErrorKind::bad_input, else as a
/// FatalError (exit 1).
[[noreturn]] void fail(ErrorKind kind, const std::string& message);
template <class T>
[[noreturn]] void fail(const Result<T>& failed) {
  fail(failed.error_kind(), failed.error());
}

/// `run`'s exit status; where it throws, "pdx: error: WHAT" on stderr and `usage_status` for a
/// UsageError, kExitFailure for any other error.
int report_errors(const std::function<int()>& run, int usage_status = kExitUsage);

}  // namespace pdx
