#pragma once
// One host's pull over a direct link (pdx(1), pull, --data-via): its agent's `--send` command
// (agent/agent_send.h) run on its ssh session, set up on its stdin with a secret made for this
// host, and the tar stream it sends taken over the link pdx makes to it (distribute/direct_link.h's
// direct_connect, LinkFlow::to_connector), on a thread of this host's own, into its PullReceiver
// as it comes; a thread of its own says pdx is there (heartbeats) while unpack is behind.
//
//   pdx -> agent (stdin)   relay_setup (direct)
//   agent -> pdx (stdout)  relay_listening ADDRESS PORT
//   pdx                    connects within kDirectConnectTime; linked: relay_go on stdin, then
//                          receives to the stream's end, unpack finished, says it passed the
//                          stream on and closes the link (the agent's send then ends, and the
//                          agent with it); not linked: stdin ends, and the agent ends at once
//
// Where the link cannot be made, nothing was received and the caller pulls over ssh after all.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <string>

#include "distribute/direct_link.h"
#include "distribute/pull/pull_receiver.h"
#include "distribute/reply_sink.h"
#include "transport/transport.h"

namespace pdx {

class ProgressMeter;

struct LinkedPull {
  bool linked = false;     // the stream came over the link (whole or not); else nothing came
  bool gave_up = false;    // linked: the agent said its stream broke off (its stderr says why)
  ReplySink::Reply reply;  // the agent's stdout (its first bytes) and stderr, the exec's result
  std::string error;       // linked: the link's failure, "" when the whole stream came;
                           // not linked: why there is no link (one line)
};

/// Runs `command` (the agent's --send) on `session`, listening where `options` say, and feeds
/// what it sends over the link to `receiver` (ended, or abandoned when the link broke), its
/// bytes told to `progress` (may be null). Linked, the receiver is done with when this returns.
boost::asio::awaitable<LinkedPull> pull_over_link(Session& session, const Job& job,
                                                  const std::string& command,
                                                  PullReceiver& receiver,
                                                  const RelayOptions& options,
                                                  ProgressMeter* progress, StopSignal& stop);

}  // namespace pdx
