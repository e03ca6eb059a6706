#include "core/jobs.h"

namespace pdx {

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
    job.command = tmpl.substitute ? substitute_exec(tmpl.command, host, user, rank) : tmpl.command;
    job.env = std::move(env);
    job.stdin_source = tmpl.stdin_source;
    job.connect_timeout = tmpl.connect_timeout;
    job.command_timeout = tmpl.command_timeout;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace pdx
