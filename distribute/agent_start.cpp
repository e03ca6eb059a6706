#include "distribute/agent_start.h"

#include <algorithm>

#include "core/hostset.h"
#include "distribute/file_input.h"

namespace pdx {

std::optional<std::string> agent_cannot_run(const ReplySink::Reply& reply, bool deployed) {
  if (!reply.out.empty() || reply.result.failure != Failure::none || !reply.result.signal.empty())
    return std::nullopt;
  int status = reply.result.exit_status;
  if (status == 126 || status == 127) return host_said(reply);
  if (deployed && status == kAgentMissing)
    return std::string("its copy in ~/.cache/pdx is not executable");
  return std::nullopt;
}

std::string agent_fallback_warning(const std::vector<std::pair<std::string, std::string>>& reasons,
                                   const std::string& instead) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (const auto& [label, reason] : reasons) {
    auto it = std::find_if(by_reason.begin(), by_reason.end(),
                           [&](auto& r) { return r.first == reason; });
    if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {reason, {}});
    it->second.push_back(label);
  }
  std::string text;
  for (const auto& [reason, labels] : by_reason)
    text += "pdx: warning: " + fold_names(labels) + ": the agent cannot run there (" + reason +
            "); " + instead + " (slower)\n";
  return text;
}

boost::asio::awaitable<ReplySink::Reply> upload_agent(Session& session, const Job& job,
                                                      const AgentLocation& agent, int binary,
                                                      StopSignal& stop) {
  FileInput input(binary);
  const std::string command = upload_command(agent);  // not a temporary: GCC 12's coroutines
  ReplySink::Reply reply = co_await run_command(session, job, command, &input, stop);
  co_return reply;
}

boost::asio::awaitable<AgentStarted> start_agent(
    Session& session, const Job& job, const AgentLocation& agent, int binary,
    std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop) {
  AgentStarted started;
  started.reply = co_await run();  // not in a braced initialiser: GCC 12 miscompiles co_await there
  ReplySink::Reply& reply = started.reply;
  if (reply.result.failure != Failure::none) co_return started;
  started.cannot_run = agent_cannot_run(reply, false);
  if (started.cannot_run || !agent.installed.empty() || reply.result.exit_status != kAgentMissing ||
      !reply.out.empty())
    co_return started;
  ReplySink::Reply upload = co_await upload_agent(session, job, agent, binary, stop);
  if (upload.result.failure != Failure::none || upload.result.exit_status != 0) {
    started.reply = std::move(upload);
    if (started.reply.result.failure == Failure::none)
      started.error = "cannot install the agent: " + host_said(started.reply);
    co_return started;
  }
  started.reply = co_await run();
  if (started.reply.result.failure == Failure::none)
    started.cannot_run = agent_cannot_run(started.reply, true);
  co_return started;
}

}  // namespace pdx
