#include "distribute/agent_run.h"

namespace pdx {

boost::asio::awaitable<AgentStarted> AgentRun::start_agent(
    Session& session, const Job& job, std::function<boost::asio::awaitable<ReplySink::Reply>()> run,
    StopSignal& stop) {
  AgentStarted started =
      co_await pdx::start_agent(session, job, agent, binary, std::move(run), stop);
  note_agent(job.index, started);
  co_return started;
}

void AgentRun::note_agent(std::size_t i, const AgentStarted& started) {
  std::lock_guard lock(mutex);
  if (started.replaced) replaced.push_back(i);
  if (started.static_needed) statics.emplace_back(i, *started.static_needed);
}

std::string AgentRun::agent_warnings(const std::vector<Host>& hosts) const {
  std::vector<std::string> replaced_labels;
  for (std::size_t i : replaced) replaced_labels.push_back(hosts[i].label());
  std::vector<std::pair<std::string, std::string>> static_reasons;
  for (const auto& [i, why] : statics) static_reasons.emplace_back(hosts[i].label(), why);
  return agent_replaced_warning(replaced_labels) + agent_static_warning(static_reasons);
}

}  // namespace pdx
