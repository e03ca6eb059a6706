#pragma once
// From hosts and a command to one Job per host: the command as typed (or with pdsh's %h %u %n
// substituted), and its place in the run and the user's variables as a list the transport
// delivers its own way (ARCHITECTURE.md, "Output promises").
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
  std::string command;       // as typed
  std::vector<EnvVar> env;   // -E / --env-file, in order
  std::string default_user;  // for %u: -l USER, else local_user()
  /// %h %u %n %% substituted: -R exec, and pdsh's ssh module too (cmd/pdsh.cpp).
  bool substitute = false;
  std::shared_ptr<Broadcast> stdin_source;                   // see Job::stdin_source
  std::optional<std::chrono::milliseconds> connect_timeout;  // see Job::connect_timeout
  std::chrono::milliseconds command_timeout{0};
};

/// The local user, for %u when -l is not given: the name of this uid's passwd entry, as pdsh and
/// ssh take it ($USER is unset under cron, systemd units and containers), else $USER (a uid with
/// no entry), else "".
std::string local_user();

/// Job::command is the command as typed, or with substitute_exec() applied; Job::env holds
/// PDX_* (place_env()) then the user's variables.
std::vector<Job> make_jobs(const std::vector<Host>& hosts, const JobTemplate& tmpl);

}  // namespace pdx
