#pragma once
// pdx's side of a relay (`pdx push --relay`): the hosts of one group run `pdx agent --relay=DEST`
// all at once, as a chain in their order. pdx hands each its setup over its ssh session (the
// run's secret, made here), tells each where the next one listens, and once every link is up
// streams the group's frames to the head only; each host writes them and forwards them to the
// next (distribute/agent_relay.h). Every host still replies to pdx over its own session, so
// each is reported as in a star push. A chain that cannot link up (a host unreachable, a
// firewall between two hosts) is called off before anything is sent: the caller then sends
// from here.
#include <cstdint>
#include <string>
#include <vector>

#include "distribute/reply_sink.h"
#include "transport/transport.h"

namespace pdx {

struct RelayOptions {
  std::string bind;                 // where the agents listen; "": the address ssh reached
  std::uint16_t low = 0, high = 0;  // their ports; 0, 0: any
};

struct RelayedHost {
  ReplySink::Reply reply;     // its replies (the receive's frames), relay frames taken out
  std::string error;          // the relay's own failure for it: a malformed frame, ...
  std::string forward_error;  // its link to the next host broke off (that host says why)
};

struct RelayRun {
  bool called_off = false;         // the chain never linked up: nothing was sent (see `reason`)
  std::string reason;              // "HOST: why", one line
  std::vector<RelayedHost> hosts;  // by position in the chain
};

/// Runs `jobs` (each with the agent's --relay command) as one chain, all at once, the head
/// reading `stream` (the group's FrameStream). Jobs' stdin_source is ignored; their index is
/// taken as their place in the chain.
RelayRun relay_chain(Transport& transport, std::vector<Job> jobs, int stream,
                     const RelayOptions& options);

}  // namespace pdx
