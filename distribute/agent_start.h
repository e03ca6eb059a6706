#pragma once
// Starting `pdx agent` on a host, for push and verify alike: its command run on the host's
// session, the agent deployed first where it is missing (distribute/remote_agent.h), and where it
// cannot run (another architecture, a noexec home), why, so that the command goes through the
// host's POSIX tools instead and pdx says so once, hosts with the same reason folded.
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"

namespace pdx {

/// Why the agent cannot run on a host, from the reply to its command; nullopt when it ran (or
/// failed in a way of its own). The shell could not execute it (exit 126 or 127 with nothing on
/// stdout: Exec format error, Permission denied, not found), or, `deployed` (the command run
/// again after the upload), the self-deployed copy is still not executable (a noexec mount).
std::optional<std::string> agent_cannot_run(const ReplySink::Reply& reply, bool deployed);

/// "pdx: warning: HOSTS: the agent cannot run there (REASON); INSTEAD (slower)\n", hosts with the
/// same reason folded, in the order reasons first came. reasons: (label, reason) per host;
/// instead: what is done there ("pushing with the host's sh and tar").
std::string agent_fallback_warning(const std::vector<std::pair<std::string, std::string>>& reasons,
                                   const std::string& instead);

struct AgentStarted {
  ReplySink::Reply reply;                 // the command's last run (a failed upload's instead)
  std::optional<std::string> cannot_run;  // the agent cannot run on the host: why
  std::string error;  // the upload failed: "cannot install the agent: ..."; else ""
};

/// Uploads `binary` (this pdx, read at its own offset: not owned) on `session` as the host's
/// self-deployed agent (remote_agent's upload_command); the upload's reply.
boost::asio::awaitable<ReplySink::Reply> upload_agent(Session& session, const Job& job,
                                                      const AgentLocation& agent, int binary,
                                                      StopSignal& stop);

/// Runs one command of the agent (through `run`, which execs it on `session` with a sink of its
/// own and returns the reply, its stdout kept at least in part), and when the self-deployed agent
/// is missing there (kAgentMissing, nothing on stdout), uploads `binary` (this pdx, read at its
/// own offset: not owned) and runs the command again. A transport failure is in reply.result.
boost::asio::awaitable<AgentStarted> start_agent(
    Session& session, const Job& job, const AgentLocation& agent, int binary,
    std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop);

}  // namespace pdx
