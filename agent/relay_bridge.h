#pragma once
// Serving a relay's links out of a RelayQueue, and bridging around the hosts that die or stall:
// on each host for the hosts it forwards to (agent/agent_relay.cpp), and on pdx for the
// head (distribute/relay/relay_head.h). When a link breaks off, the hosts below the one it went to
// (RelayBranch, as deep as pdx said) are linked to from here, each from the stream offset it
// holds, out of the queue's history; around one that cannot be linked to, to the ones below it.
//
//   relay_on(link, r, branch)   reader r over link to the end; broke: bridge(branch.below)
//   bridge(below, release)      a link to each (a thread each, a reader each, joined at its
//                               offset); release() once all have joined or failed
//
// What became of it is said in one line for the warning ("X broke off (WHY): bridged around it
// to Y from offset N"). Thread-safe: each reader is served by one thread.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "agent/relay_queue.h"

namespace pdx {

/// How long a host whose upstream broke waits for a bridge from the host before that one: that
/// host sees the break as soon as this one does (a host gone), or kRelayStall later (stalled).
inline constexpr std::chrono::milliseconds kBridgeWait = kRelayStall + std::chrono::seconds(10);

/// The levels of hosts in `branches` (0 for none).
std::size_t relay_levels(const std::vector<RelayBranch>& branches);
/// `branches` cut to `levels` levels.
std::vector<RelayBranch> relay_levels_cut(std::vector<RelayBranch> branches, std::size_t levels);
/// The history a RelayQueue keeps on an end that may bridge to a host `hops` hops after it (its
/// own peers are one hop): 12 MiB a hop, what one hop lags by at most (its queue, its link's
/// socket buffers, and what the host after holds in flight); none below two hops, where there is
/// nobody to bridge to.
std::uint64_t relay_history(std::size_t hops);

/// "ADDRESS port N".
std::string relay_where(const RelayPeer& peer);

class RelayBridges {
 public:
  /// What a link says when the stream breaks here: `give_up`, no bridge will come (this end
  /// waited for one already: the hosts after it wait no longer); `drop`, it breaks as a host
  /// gone does (a bridge from above is to come: pdx's, around a head it fed directly).
  enum class OnBreak { give_up, drop };
  /// `lost`: whether this end has lost its own upstream (it has nothing to bridge with then).
  RelayBridges(RelayQueue& queue, std::string secret, std::function<bool()> lost,
               OnBreak on_break = OnBreak::give_up)
      : queue_(queue), secret_(std::move(secret)), lost_(std::move(lost)), on_break_(on_break) {}

  /// Reader r's chunks over `link` to `branch`'s host, to the end, then the reader leaves; when
  /// the link breaks off, the hosts below that one are bridged to. `from`: the offset a bridge
  /// began at (none for a link of this end's own). What became of it: "" when a link of its own
  /// went on to the end, else what was bridged, what broke and how it was bridged around.
  std::string relay_on(RelayLink& link, std::size_t r, const RelayBranch& branch,
                       std::optional<std::uint64_t> from);
  /// Links to the hosts of `below`, each fed from the offset it holds, as a reader of its own,
  /// on a thread of its own; around one it cannot link to, to the ones below it. `release` (the
  /// reader whose place in the queue holds the history they need) is called once they have
  /// all joined, or failed. Returns at the end of the stream, with what became of them (":
  /// bridged around it to ...; ...", "" for none).
  std::string bridge(const std::vector<RelayBranch>& below, const std::function<void()>& release);
  /// Reader r's chunks over `link` to the end, `sent` told of each chunk's bytes: "" when it
  /// went on to the end of the stream (or the stream broke here, or the reader left), else why
  /// the link broke. The reader stays: the caller decides whether it leaves or is bridged from.
  std::string serve(RelayLink& link, std::size_t r,
                    const std::function<void(std::size_t)>& sent = nullptr);

 private:
  std::string bridge_to(const RelayBranch& branch, const std::function<void()>& joined);

  RelayQueue& queue_;
  const std::string secret_;
  const std::function<bool()> lost_;
  const OnBreak on_break_;
};

}  // namespace pdx
