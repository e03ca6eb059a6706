#pragma once
// From hosts and a command to one Job per host: where each command's place in the run and the
// user's environment go depends on whether the transport is remote (ARCHITECTURE.md, "Output
// promises").
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/hostset.h"
#include "core/run_env.h"
#include "transport/transport.h"

namespace pdx {

struct JobTemplate {
  std::string command;             // as typed
  std::vector<EnvVar> env;         // -E / --env-file, in order
  bool remote = true;              // Transport::remote()
  std::string default_user;        // for %u: -l USER, else $USER
  bool substitute_remote = false;  // pdsh's ssh module: %h %u %n %% over ssh too (cmd/pdsh.cpp)
  std::shared_ptr<Broadcast> stdin_source;  // see Job::stdin_source
  std::optional<std::chrono::milliseconds> connect_timeout;  // see Job::connect_timeout
  std::chrono::milliseconds command_timeout{0};
};

/// Remote: command = "export PDX_HOST=... KEY=...; " + command as typed, wrapped by
/// with_remote_deadline() when there is a command timeout.
/// Local (-R exec): command with %h %u %n %% substituted; PDX_* and -E in Job::env.
/// With substitute_remote, remote commands are substituted too, before the prefix is added.
std::vector<Job> make_jobs(const std::vector<Host>& hosts, const JobTemplate& tmpl);

/// -u over ssh: libssh2 1.10 cannot signal a remote command, so the host kills it itself. The
/// command runs under `timeout -s KILL` (GNU coreutils: the whole process group is killed) in
/// the user's own shell ($SHELL -c, so it means what it means without -u), a little after pdx
/// gives up on the host. Where `timeout` is missing, the command runs as typed, unbounded.
std::string with_remote_deadline(const std::string& command, std::chrono::milliseconds timeout);

}  // namespace pdx
