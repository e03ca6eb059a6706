#pragma once
// From hosts and a command to one Job per host: where each command's place in the run and the
// user's environment go depends on whether the transport is remote (DESIGN.md "Output").
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
  bool remote = true;        // Transport::remote()
  std::string default_user;  // for %u: -l USER, else $USER
  std::shared_ptr<const std::string> stdin_data;
  std::optional<std::chrono::milliseconds> connect_timeout;  // see Job::connect_timeout
  std::chrono::milliseconds command_timeout{0};
};

/// Remote: command = "export PDX_HOST=... KEY=...; " + command as typed.
/// Local (-R exec): command with %h %u %n %% substituted; PDX_* and -E in Job::env.
std::vector<Job> make_jobs(const std::vector<Host>& hosts, const JobTemplate& tmpl);

}  // namespace pdx
