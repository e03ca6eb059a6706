#include "core/jobs.h"

#include "core/quote.h"

namespace pdx {

namespace {

// Grace between pdx giving up on a host (-u) and the host killing the command itself, so pdx
// reports "command timed out" rather than a signal that raced it.
constexpr std::chrono::milliseconds kRemoteKillGrace{2000};

}  // namespace

std::string with_remote_deadline(const std::string& command, std::chrono::milliseconds timeout) {
  auto ms = timeout + kRemoteKillGrace;
  std::string seconds =
      std::to_string(ms.count() / 1000) + "." + std::to_string(ms.count() % 1000 / 100);
  return "if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL " + seconds +
         " \"${SHELL:-/bin/sh}\" -c " + shell_quote(command) + "; fi\n" + command;
}

std::vector<Job> make_jobs(const std::vector<Host>& hosts, const JobTemplate& tmpl) {
  std::vector<Job> jobs;
  jobs.reserve(hosts.size());
  for (std::size_t rank = 0; rank < hosts.size(); ++rank) {
    const Host& host = hosts[rank];
    std::vector<EnvVar> env = place_env(hosts, rank);
    env.insert(env.end(), tmpl.env.begin(), tmpl.env.end());
    Job job;
    job.endpoint = {host.name, host.user, host.port};
    job.label = host.label();
    job.index = rank;
    const std::string& user = host.user.empty() ? tmpl.default_user : host.user;
    if (tmpl.remote) {
      std::string command =
          tmpl.substitute_remote ? substitute_exec(tmpl.command, host, user, rank) : tmpl.command;
      job.command = export_prefix(env) + (tmpl.command_timeout.count() > 0
                                              ? with_remote_deadline(command, tmpl.command_timeout)
                                              : command);
    } else {
      job.command = substitute_exec(tmpl.command, host, user, rank);
      job.env = std::move(env);
    }
    job.stdin_source = tmpl.stdin_source;
    job.connect_timeout = tmpl.connect_timeout;
    job.command_timeout = tmpl.command_timeout;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace pdx
