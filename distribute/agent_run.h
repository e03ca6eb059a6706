#pragma once
// What every host's task of a run that starts the agent shares (push, sync and verify): the agent
// and the binary to upload, and which hosts' cached agent was replaced or got pdx-static, noted
// from any task for the warnings said once the run is over.
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/hostset.h"
#include "distribute/agent_start.h"
#include "distribute/remote_agent.h"
#include "transport/transport.h"

namespace pdx {

struct AgentRun {
  AgentRun(const AgentLocation& agent_, int binary_) : agent(agent_), binary(binary_) {}

  const AgentLocation& agent;
  int binary;  // this pdx, read by each upload at its own offset (self-deploy only)

  std::mutex mutex;                   // what follows, and what a run built on this one adds
  std::vector<std::size_t> replaced;  // hosts whose cached agent was not to be trusted
  std::vector<std::pair<std::size_t, std::string>> statics;  // (host, why): pdx-static sent

  /// start_agent (distribute/agent_start.h) with this run's agent, on host `job.index`, what it
  /// replaced or sent there noted (note_agent).
  boost::asio::awaitable<AgentStarted> start_agent(
      Session& session, const Job& job,
      std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop);
  /// Whether host i's agent was replaced, or pdx-static sent there.
  void note_agent(std::size_t i, const AgentStarted& started);
  /// What was noted, as agent_replaced_warning and agent_static_warning say it (`hosts`: the
  /// run's, by index). After the run.
  std::string agent_warnings(const std::vector<Host>& hosts) const;
};

}  // namespace pdx
