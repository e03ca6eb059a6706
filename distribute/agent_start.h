#pragma once
// Starting `pdx agent` on a host, for push and verify alike: its command run on the host's
// session, the agent deployed first where it is missing (distribute/remote_agent.h), and where it
// cannot run (another architecture, a noexec home, a cache it cannot write), why, so that the
// command goes through the host's POSIX tools instead and pdx says so once, hosts with the same
// reason folded; and a host's shell that writes before the command runs, named.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/fd.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"

namespace pdx {

/// The agent a push, sync or verify starts on its hosts.
struct PreparedAgent {
  AgentLocation location;  // nothing with no_agent
  Fd binary;  // this pdx, read by each upload at its own offset (self-deploy only); else none
};

/// `--agent PATH` (`installed`, nothing read here), or this pdx to self-deploy (locate_agent),
/// opened for its uploads; with `no_agent` (--no-agent) nothing: this binary is not read, nor
/// hashed for its name. Throws FatalError where pdx cannot read or hash its own binary.
PreparedAgent prepare_agent(const std::string& installed, bool no_agent);

/// Why the agent cannot run on a host, from the reply to its command; nullopt when it ran (or
/// failed in a way of its own). The shell could not execute it (exit 126 or 127 with nothing on
/// stdout: Exec format error, Permission denied, not found), the self-deployed copy cannot be
/// executed (kAgentNoExec: a noexec mount), or, `deployed` (the command run again after the
/// upload), it is still missing.
std::optional<std::string> agent_cannot_run(const ReplySink::Reply& reply, bool deployed);

/// "the host's shell writes N bytes before the command runs: 'TEXT'" when the reply's stdout
/// starts with what is not the agent's (a startup file printing to stdout); else nullopt. All of
/// stdout when the command exited before the agent ran (126, 127, remote_agent.h's statuses);
/// else the bytes before the first offset where frames decode, when the first byte is not one.
std::optional<std::string> shell_preamble(const ReplySink::Reply& reply);

/// "pdx: warning: HOSTS: the agent cached there was not as pdx left it; uploaded it again\n",
/// or "" without hosts.
std::string agent_replaced_warning(const std::vector<std::string>& labels);

/// "pdx: warning: HOSTS: the agent cannot run there (REASON); INSTEAD (slower)\n", hosts with the
/// same reason folded, in the order reasons first came. reasons: (label, reason) per host;
/// instead: what is done there ("pushing with the host's sh and tar").
std::string agent_fallback_warning(const std::vector<std::pair<std::string, std::string>>& reasons,
                                   const std::string& instead);

/// "pdx: warning: HOSTS: pdx cannot run there (REASON); its static build was uploaded instead,
/// and runs there from now on\n", hosts with the same reason (the dynamic loader's) folded.
std::string agent_static_warning(const std::vector<std::pair<std::string, std::string>>& reasons);

struct AgentStarted {
  ReplySink::Reply reply;                 // the command's last run (a failed upload's instead)
  std::optional<std::string> cannot_run;  // the agent cannot run (or be installed) there: why
  std::string error;      // the host's shell writes before the command (shell_preamble); else ""
  bool replaced = false;  // the host's copy was not to be trusted, and was uploaded again
  // The host could not run the binary (the dynamic loader's words), so its static build was
  // uploaded (agent.fallback) and runs there.
  std::optional<std::string> static_needed;
};

/// Uploads the agent on `session` as the host's self-deployed agent (remote_agent's
/// upload_command): agent.gzipped where there is one and the host has gzip, else `binary` (the
/// agent, read at its own offset: not owned; -1: agent.binary opened here); the upload's reply.
boost::asio::awaitable<ReplySink::Reply> upload_agent(Session& session, const Job& job,
                                                      const AgentLocation& agent, int binary,
                                                      StopSignal& stop);

/// Runs one command of the agent (through `run`, which execs it on `session` with a sink of its
/// own and returns the reply, its stdout kept at least in part), and when the self-deployed agent
/// is missing there or not to be trusted (agent_upload_needed, nothing on stdout), uploads it
/// (upload_agent) and runs the command again; where the host then cannot run it (exit 127,
/// pdx's libraries missing) or its copy of the static build is not to be trusted
/// (kStaticUntrusted), uploads agent.fallback and runs the command again. An upload the host
/// refuses is a reason it cannot run there. A transport failure is in reply.result.
boost::asio::awaitable<AgentStarted> start_agent(
    Session& session, const Job& job, const AgentLocation& agent, int binary,
    std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop);

/// start_agent from the reply to the command's first run, `first` (a command run by the caller,
/// e.g. with an input of its own that later runs cannot read again): `run` runs it again.
boost::asio::awaitable<AgentStarted> deploy_agent(
    ReplySink::Reply first, Session& session, const Job& job, const AgentLocation& agent,
    int binary, std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop);

/// Whether the reply to an agent's command asks deploy_agent for an upload: the self-deployed
/// agent missing or not to be trusted there (agent_upload_needed), the host unable to run it
/// (exit 127) or its copy of the static build not to be trusted (kStaticUntrusted) where there is
/// a static build; nothing on stdout.
bool agent_upload_asked(const AgentLocation& agent, const ReplySink::Reply& reply);

}  // namespace pdx
