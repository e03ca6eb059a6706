#pragma once
// What every subcommand does the same way with CLI11: parse, and on --help / a usage error
// print and tell the caller which exit status to return.
#include <optional>

#include <CLI/CLI.hpp>

namespace pdx {

/// Parse argv into app. Returns nullopt when the subcommand should go on; otherwise the exit
/// status to return at once: 0 after --help/--version, 2 after a usage error, which is printed as
/// one line "pdx: error: ..." followed by "Try 'pdx [SUB] --help'".
std::optional<int> parse_cli(CLI::App& app, int argc, char** argv);

/// `pdx --compat-dir`: prints the directory holding the pdsh and dshbak links of this pdx
/// (PREFIX/lib/pdx/bin for PREFIX/bin/pdx), then ends the parse with CLI::Success (exit 0).
/// Throws FatalError when there is no such directory (pdx run from its build tree).
void print_compat_dir();

}  // namespace pdx
