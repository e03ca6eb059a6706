#pragma once
// What every subcommand does the same way: parse with CLI11, and on --help / a usage error
// print and tell the caller which exit status to return; end the run on a failed Result.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

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

/// `pdx --compat-dir`: prints the directory holding the pdsh and dshbak links of this pdx
/// (PREFIX/lib/pdx/bin for PREFIX/bin/pdx), then ends the parse with CLI::Success (exit 0).
/// Throws FatalError when there is no such directory (pdx run from its build tree).
void print_compat_dir();

}  // namespace pdx
