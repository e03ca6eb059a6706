#pragma once
// A star push's (and sync's) data over a link of its own to the host (pdx(1), push, --data-via):
// pdx connects to the host's agent and sends it the group's stream in sealed records
// (agent/relay_link.h: the relay's link and its one framing, AES-128-GCM under keys of this link's
// own, per direction, derived from a secret made for this host and handed to its agent over its ssh
// session), not through the ssh channel (libssh2 1.10's AES-CTR and HMAC: about 2.6 s of pdx's CPU
// a GB, and 2 s of the host's sshd). The control stays on ssh: the agent runs its --relay command
// as a relay host with nobody after it, whose upstream is pdx.
//
//   pdx -> agent (stdin)   relay_setup (direct: a link that breaks is not bridged), relay_next
//                          (nobody after it)
//   agent -> pdx (stdout)  relay_listening ADDRESS PORT (--relay-bind, --relay-ports)
//   pdx                    connects on a thread of this host's own, within kDirectConnectTime;
//                          linked: relay_go on stdin, then reader j of the group's Broadcast over
//                          the link to its end (a keepalive every 2 s while it waits);
//                          not linked: stdin ends, and the agent ends having received nothing
//   agent -> pdx           relay_linked, the receive's frames (written, failed, summary),
//                          relay_end
//
// Where the link cannot be made, nothing was received and the caller sends over ssh after all.
// A relay's head is linked to the same way (direct_connect; distribute/relay/relay_chain.h), its
// reader the HeadFeed's.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agent/relay_link.h"
#include "distribute/held_agent.h"
#include "distribute/relay/relay_chain.h"
#include "distribute/reply_sink.h"
#include "transport/broadcast.h"
#include "transport/transport.h"

namespace pdx {

/// --data-via: how a star's data reaches an agent. `automatic`: over a direct link where the host
/// was reached over TCP (no jump host, no ProxyCommand) and the stream is not tiny, else, or where
/// the link cannot be made, over ssh (said once); `ssh`: always over its ssh channel; `direct`:
/// always over a direct link, a host that cannot link failed.
enum class DataVia { automatic, ssh, direct };

/// A stream of fewer bytes goes over ssh in automatic mode: a link's setup (a secret, a listener,
/// a connect and its handshake, a round trip on the session) costs more than the ssh channel's
/// ciphers spend on so little (about 2.6 ms of pdx's CPU a MiB; the setup about 10 ms a host).
inline constexpr std::uint64_t kDirectMinBytes = 1 << 20;
/// Whether `bytes` (the stream's size, or a bound on it) for `session`'s host are to go over a
/// direct link.
bool direct_wanted(DataVia via, const Session& session, std::uint64_t bytes);

inline constexpr std::chrono::milliseconds kDirectConnectTime = std::chrono::seconds(5);

/// pdx's link to an agent listening at `peer` as a direct host (a star's, or a relay's head; or,
/// `flow` LinkFlow::to_connector, a pull's sending host), within kDirectConnectTime.
/// `PDX_TEST_DIRECT_VIA=ADDRESS:PORT` (tests only) connects there instead: a proxy that captures or
/// alters the bytes; records sealed for the agent are all that can pass through it.
Result<RelayLink> direct_connect(const RelayPeer& peer, std::string_view secret,
                                 LinkFlow flow = LinkFlow::to_listener);

struct DirectRan {
  bool linked = false;     // the stream went over the link; else nothing was received
  ReplySink::Reply reply;  // the agent's replies (relay frames taken out), the exec's result
  std::string error;       // linked: the link's failure on pdx's side, or a malformed reply;
                           // not linked: why there is no link (one line)
};

/// Runs `command` (the agent's --relay=DEST or --relay-patch=DEST command, as the host runs it) on
/// `session`, its stream reader `reader` of `source` over a direct link to it; listening where
/// `options` say (bind, low, high); or through `held`, the agent that listed, where it waits.
/// Linked, `source`'s reader is finished when this returns; not linked, it was not read from, for
/// the caller to send it over ssh.
boost::asio::awaitable<DirectRan> direct_receive(Session& session, const Job& job,
                                                 const std::string& command, Broadcast& source,
                                                 std::size_t reader, const RelayOptions& options,
                                                 StopSignal& stop, HeldAgent* held = nullptr);

struct StagingRun;

/// A star's stream into one host's agent (sync's), of at most `bytes`: over a direct link where
/// `via`, the session and `bytes` say so (direct_wanted), its `relay` command; else, or where no
/// link can be made (noted in `run`, note_over_ssh), through its ssh session, its `star` command
/// with reader `reader` of `source` as stdin; either way through the agent that stayed (`held`)
/// where it waits. `error`: why the host fails when it must have linked (DataVia::direct).
boost::asio::awaitable<ReplySink::Reply> star_receive(
    StagingRun& run, DataVia via, const RelayOptions& options, Session& session, const Job& job,
    Broadcast& source, std::size_t reader, std::uint64_t bytes, const std::string& star,
    const std::string& relay, HeldAgent* held, std::string& error, StopSignal& stop);

}  // namespace pdx
