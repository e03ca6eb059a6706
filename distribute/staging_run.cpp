#include "distribute/staging_run.h"

#include <algorithm>

#include "core/hostset.h"

#include "core/run_env.h"
#include "distribute/host_outcome.h"

namespace pdx {

std::string StagingRun::command_for(std::size_t i, const std::string& command) const {
  const Host& host = hosts[i];
  return substitute_exec(command, host, host.user.empty() ? tmpl.default_user : host.user, i);
}

void StagingRun::note_local(std::vector<std::string> errors) {
  std::lock_guard lock(mutex);
  add_once(local, std::move(errors));
}

void StagingRun::note_relay(RelayGroup& relay) {
  auto off = relay.called_off();
  auto line = relay.head_bridged();
  std::lock_guard lock(mutex);
  if (off) {
    if (called_off.empty()) called_off_reason = std::move(off->reason);
    called_off.insert(called_off.end(), off->hosts.begin(), off->hosts.end());
  }
  if (line) bridged_heads.push_back(std::move(*line));
}

void StagingRun::note_forwarded(std::size_t i, std::string said) {
  std::lock_guard lock(mutex);
  forwarded.emplace_back(i, std::move(said));
}

std::string StagingRun::called_off_text() const {
  return called_off.empty() ? "" : called_off_line(called_off, called_off_reason);
}

void StagingRun::note_over_ssh(std::size_t i, std::string why) {
  std::lock_guard lock(mutex);
  over_ssh.emplace_back(i, std::move(why));
}

std::string StagingRun::over_ssh_text() {
  std::lock_guard lock(mutex);
  if (over_ssh.empty()) return "";
  std::sort(over_ssh.begin(), over_ssh.end());
  std::vector<std::string> labels;
  for (const auto& [i, why] : over_ssh) labels.push_back(hosts[i].label());
  const auto& [first, why] = over_ssh.front();
  return fold_names(labels) + ": no direct data link (" +
         (labels.size() > 1 ? hosts[first].label() + ": " : "") + printable(why) +
         "); sent over ssh";
}

HostResult interrupted() {
  HostResult r;
  r.failure = Failure::interrupted;
  r.error = "interrupted";
  return r;
}

}  // namespace pdx
