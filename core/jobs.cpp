#include "core/jobs.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace pdx {

std::string local_user() {
  passwd entry{}, *found = nullptr;
  std::string buffer(1024, '\0');
  int rc;
  while ((rc = ::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found)) == ERANGE &&
         buffer.size() < (1 << 20))
    buffer.resize(buffer.size() * 2);
  if (rc == 0 && found && found->pw_name && *found->pw_name) return found->pw_name;
  const char* user = std::getenv("USER");
  return user ? user : "";
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
