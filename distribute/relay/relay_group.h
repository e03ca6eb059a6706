#pragma once
// One group's stream to its hosts with --relay (push and sync): host to host as a Chain
// (distribute/relay/relay_chain.h), each member's command run on its own session; when the chain
// cannot link up (or no secret can be made), from here after all: a Broadcast of the same
// stream, started by the first member to ask (the chain read nothing of it), and one line that
// says so. Every member of a group runs at once (a group within one wave of -f hosts).
//
//   member j:  relayed(j) -> relay command through the chain ...... its reply (the head's
//                           stream over a direct link from here, or its ssh channel)
//                        \-> called off: nullopt; its reader j of star_source(), the broadcast,
//                            goes as a star's does (over a direct link, or ssh)
//   ended(j):  from the pass's sink when member j's task is over: the chain and the broadcast
//              stop waiting for it
//
// Thread-safety: run() and ended() from the members' strands.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distribute/direct_link.h"
#include "distribute/held_agent.h"
#include "distribute/relay/relay_chain.h"
#include "distribute/reply_sink.h"
#include "transport/broadcast.h"
#include "transport/transport.h"

namespace pdx {

class RelayGroup {
 public:
  /// The group `labels` (in the chain's order) reading `stream`, a pipe of the group's frames,
  /// at most `bytes` of them: the chain's head reads it with `head` as its Broadcast's options,
  /// the star with `star`.
  RelayGroup(std::vector<std::string> labels, const RelayOptions& options, int stream,
             std::uint64_t bytes, Broadcast::Options head = {}, Broadcast::Options star = {});
  RelayGroup(const RelayGroup&) = delete;
  RelayGroup& operator=(const RelayGroup&) = delete;
  ~RelayGroup();  // the broadcast and the chain before the stream they read

  struct Ran {
    ReplySink::Reply reply;  // the agent's own replies (relay frames taken out)
    std::string error;       // the relay's failure for this host: a malformed frame, ...
    std::string forwarded;   // what it said of a link it forwards to that broke off ("X broke
                             // off (...): bridged around it to Y ..."): printable, bounded; ""
    std::string over_ssh;    // the head's stream went over its ssh channel, no direct link
                             // made (via automatic): why; ""
  };
  /// Member j's part: `relay` (the agent's --relay command, as the host runs it) through the
  /// chain; nullopt when the chain was called off (or never was), nothing received. The head's
  /// stream goes over a direct link where `via`, its session and the stream's size say so
  /// (direct_wanted); with DataVia::direct, a head that cannot link fails and the chain is called
  /// off. With `held` (waiting: its agent listed with --relay and stays), through it instead of
  /// a command of its own.
  boost::asio::awaitable<std::optional<Ran>> relayed(Session& session, const Job& job,
                                                     std::size_t j, const std::string& relay,
                                                     DataVia via, HeldAgent* held,
                                                     StopSignal& stop);
  /// The group's stream from here once the chain is off, member j reading it as reader j: the
  /// broadcast, started by the first member to ask (members that ended are finished at once).
  Result<Broadcast*> star_source();
  /// At most how many bytes the stream holds.
  std::uint64_t bytes() const { return bytes_; }
  void ended(std::size_t j);
  struct CalledOff {
    std::vector<std::string> hosts;  // the group's
    std::string reason;              // printable
  };
  /// The group's hosts and why, once the relay was called off; else nullopt.
  std::optional<CalledOff> called_off() const;
  /// Once every member has ended: the warning's line when the chain's head went before it had
  /// passed the stream on and pdx bridged around it ("HEAD: the relay's head is gone; from
  /// here, bridged around it to ADDRESS port N from offset N"); else nullopt.
  std::optional<std::string> head_bridged();

 private:
  const std::vector<std::string> labels_;
  const int stream_;
  const std::uint64_t bytes_;
  const Broadcast::Options star_options_;
  std::unique_ptr<Chain> chain_;  // none without a secret: from here at once
  mutable std::mutex mutex_;      // for what follows
  std::vector<bool> ended_;
  std::optional<std::string> called_off_;  // the reason
  std::unique_ptr<Broadcast> star_;
};

/// "HOSTS: the relay could not link up (REASON); sending from here", HOSTS folded.
std::string called_off_line(const std::vector<std::string>& hosts, const std::string& reason);

/// What a host said of its links that broke off (untrusted): printable, at most about
/// kMaxForwarded bytes of it, cut with "...".
inline constexpr std::size_t kMaxForwarded = 1024;
std::string forwarded_said(std::string_view said);

}  // namespace pdx
