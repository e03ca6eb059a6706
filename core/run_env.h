#pragma once
// A command's place in the run, and how it reaches the command (ARCHITECTURE.md, "Output
// promises").
//
// Every host's command is told PDX_HOST, PDX_RANK (0-based), PDX_NHOSTS, PDX_MASTER (the first
// host) and, when the hostfile gave slots, PDX_SLOTS; plus the user's -E / --env-file variables.
// They go to the transport with the command (ExecRequest::env): over ssh they are exported by a
// quoted prefix on the command line (transport/remote_command.h), under -R exec they go into the
// child's environment. The command text itself is never touched,
// except that -R exec substitutes pdsh's %h %u %n %%.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hostset.h"
#include "transport/transport.h"

namespace pdx {

/// PDX_* variables for the host at `rank` among `hosts`.
std::vector<EnvVar> place_env(const std::vector<Host>& hosts, std::size_t rank);

/// Parse "KEY=VALUE" (-E). Throws UsageError for a missing '=' or a KEY that is not a shell name.
EnvVar parse_env_assignment(std::string_view text);

/// Read --env-file: KEY=VALUE lines, '#' comments, blank lines, optional leading "export ".
/// Values are taken literally (no quote removal). Throws UsageError naming file:line.
std::vector<EnvVar> read_env_file(const std::string& path);

/// -R exec: %h -> host name, %u -> user (shell-quoted unless a plain word), %n -> rank,
/// %% -> %. Other % sequences stay as typed.
std::string substitute_exec(std::string_view command, const Host& host, std::string_view user,
                            std::size_t rank);

}  // namespace pdx
