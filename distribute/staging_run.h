#pragma once
// What every host's task of one push or sync shares (distribute/push/push.cpp,
// distribute/sync/sync.cpp): the hosts and the agent to start there, what could not be read here,
// the run's fatal error, and what its warnings say once the run is over (cached agents replaced,
// pdx-static sent, relays called off, links bridged around), each noted from any host's task.
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/agent_run.h"
#include "distribute/agent_start.h"
#include "distribute/relay/relay_group.h"
#include "distribute/remote_agent.h"
#include "transport/transport.h"

namespace pdx {

// The agent, its start on a host and the hosts where it was replaced or pdx-static sent are
// AgentRun's (distribute/agent_run.h), shared with verify.
struct StagingRun : AgentRun {
  StagingRun(const std::vector<Host>& hosts_, const JobTemplate& tmpl_, const AgentLocation& agent_,
             int binary_, std::vector<std::string>& local_)
      : AgentRun(agent_, binary_), hosts(hosts_), tmpl(tmpl_), local(local_) {}

  const std::vector<Host>& hosts;
  const JobTemplate& tmpl;
  std::vector<std::string>& local;  // the report's: what could not be read here

  // Under AgentRun's mutex: `local` and what follows.
  std::exception_ptr fatal;  // a stream could not be made: rethrow_fatal() once the run is over
  std::vector<std::string> called_off;                       // the hosts of every relay called off
  std::string called_off_reason;                             // the first one's
  // (host, what it said of a link it bridged around), in the order said.
  std::vector<std::pair<std::size_t, std::string>> forwarded;
  std::vector<std::string> bridged_heads;                     // RelayGroup::head_bridged()'s lines
  std::vector<std::pair<std::size_t, std::string>> over_ssh;  // (host, why no direct data link)

  /// `command` as host i runs it: %h %n substituted (DEST is as typed), over ssh too.
  std::string command_for(std::size_t i, const std::string& command) const;
  /// Into `local`, each error once.
  void note_local(std::vector<std::string> errors);
  /// A relay group whose hosts have all ended: called off (one line for the run), or its head
  /// bridged around.
  void note_relay(RelayGroup& relay);
  /// What host i said of a link it bridged around.
  void note_forwarded(std::size_t i, std::string said);
  /// "HOSTS: the relay could not link up (...)": every relay called off, with the first
  /// reason; "" when none.
  std::string called_off_text() const;
  /// Host i's data went over ssh, no direct link made (distribute/direct_link.h): why.
  void note_over_ssh(std::size_t i, std::string why);
  /// "HOSTS: no direct data link (HOST: WHY); sent over ssh", every such host with the first
  /// one's reason; "" when none.
  std::string over_ssh_text();

  /// `seat()` (a wave's seating, which must not throw) unless the run has failed already; what
  /// it throws is the run's fatal error, and nobody is seated.
  template <class Seat>
  auto unless_fatal(Seat seat) -> decltype(seat()) {
    {
      std::lock_guard lock(mutex);
      if (fatal) return {};  // thrown once the run is over: nothing more is sent
    }
    try {
      return seat();
    } catch (...) {
      std::lock_guard lock(mutex);
      fatal = std::current_exception();
      return {};
    }
  }
  void rethrow_fatal() const {
    if (fatal) std::rethrow_exception(fatal);
  }
};

/// A host's task ended by Ctrl-C before its next step.
HostResult interrupted();

}  // namespace pdx
