#pragma once
// What an ssh exec sends to the user's shell on the host for an ExecRequest: the variables
// exported by a quoted prefix (works without AcceptEnv), and under a timeout the host's own
// deadline (ARCHITECTURE.md, "Output promises").
#include <chrono>
#include <string>
#include <vector>

#include "transport/transport.h"

namespace pdx {

/// export_prefix(env) + the command, wrapped by with_remote_deadline() when it has a timeout.
std::string remote_command(const ExecRequest& request);

/// "export K1=V1 K2='v 2'; " with every value through shell_quote; empty for no variables.
std::string export_prefix(const std::vector<EnvVar>& env);

/// -u over ssh: libssh2 1.10 cannot signal a remote command, so the host kills it itself. The
/// command runs under `timeout -s KILL` (GNU coreutils: the whole process group is killed) in
/// the user's own shell ($SHELL -c, so it means what it means without -u), a little after pdx
/// gives up on the host. Where `timeout` is missing, the command runs as typed, unbounded.
std::string with_remote_deadline(const std::string& command, std::chrono::milliseconds timeout);

}  // namespace pdx
