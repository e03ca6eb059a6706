#pragma once
// The frames by which pdx sets up a relay with each agent, over the agent's ssh session
// (agent/agent_protocol.h's framing; the data itself then goes host to host,
// agent/relay_link.h):
//
//   pdx -> agent   relay_setup      the run's secret, head or not, where to listen
//   agent -> pdx   relay_listening  the address and port it listens on (the head: none)
//   pdx -> agent   relay_next       where the hosts it forwards to listen (none for a last one;
//                                   one in a chain, up to kMaxRelayFanout in a tree), and
//                                   where theirs do, some levels down: the hosts it bridges
//                                   to when one of its own dies or stalls, and when that one's
//                                   are gone too, theirs
//   agent -> pdx   relay_linked     its links to those hosts are up, or why not
//   pdx -> agent   relay_go         every link is up: the head's stream follows on its stdin, or
//                                   on the link pdx made to it (a head set up to listen, as a
//                                   direct host), or on its stdin after all when pdx could not
//                                   link to it (RelayGo::over_stdin); the end of stdin instead:
//                                   the relay is called off
//   agent -> pdx   ...              the receive's frames (written, failed, summary), then
//                  relay_end        what became of the forwarding ("" when all went on); said
//                                   only by a host that had the whole stream (pdx bridges around
//                                   a head that did not)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_protocol.h"
#include "base/fd.h"
#include "base/result.h"

namespace pdx {

struct RelaySetup {
  std::string secret;               // kRelaySecretSize bytes
  bool head = false;                // reads the stream from stdin, listens for nobody
  std::string bind;                 // where to listen; "": the address its ssh session came in on
  std::uint16_t low = 0, high = 0;  // ports to listen on; 0, 0: one the kernel picks
  bool direct = false;  // linked to by pdx itself (a star push): a link that breaks is not bridged
};
struct RelayPeer {
  std::string address;  // numeric; "" for none
  std::uint16_t port = 0;
};
constexpr std::size_t kMaxRelayFanout = 16;
// How deep below a host it is told of the relay (its own peers are the first level), and of how
// many hosts in all: a host bridges around as many dead or stalled hosts in a row as it knows
// levels below them. pdx sends fewer levels to a wide tree's hosts (relay_depth()).
constexpr std::size_t kMaxRelayDepth = 3;
constexpr std::size_t kMaxRelayBelow = 1024;
struct RelayBranch {
  RelayPeer peer;
  std::vector<RelayBranch> below;  // the hosts it forwards to, each with its own, as deep as told
};
struct RelayNext {
  std::vector<RelayBranch> peers;  // at most kMaxRelayFanout, each with as many below
};
/// The levels of a relay of fan-out `fanout` a host is told of: as many as kMaxRelayBelow
/// holds, at most kMaxRelayDepth, at least 1.
std::size_t relay_depth(std::size_t fanout);
struct RelayStatus {
  std::string error;  // "" when fine; one line
};
struct RelayGo {
  bool over_stdin = false;  // a host set up to listen takes the stream on its stdin after all
};

std::string encode(const RelaySetup& m);
std::string encode(const RelayPeer& m);
std::string encode(const RelayNext& m);
std::string encode(const RelayStatus& m);
std::string encode(const RelayGo& m);  // "" for the default: a go as set up
Result<RelaySetup> decode_relay_setup(std::string_view payload);
Result<RelayPeer> decode_relay_peer(std::string_view payload);
Result<RelayNext> decode_relay_next(std::string_view payload);
Result<RelayStatus> decode_relay_status(std::string_view payload);
Result<RelayGo> decode_relay_go(std::string_view payload);

/// Reads exactly one frame from `fd` (no byte beyond it, so what follows stays for the next
/// reader): its type must be `type`. An Error at the end of input, or for another frame.
Result<Frame> read_frame(int fd, FrameType type);

}  // namespace pdx
