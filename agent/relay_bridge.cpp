#include "agent/relay_bridge.h"

#include <algorithm>
#include <latch>
#include <system_error>
#include <thread>

namespace pdx {

namespace {

using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kKeepaliveEvery = 2s;  // a link with nothing to send says so
// How long a bridge waits for the host beyond to take it: it takes it once its own upstream has
// broken, at once (a host gone), after kRelayStall (stalled), or after kBridgeWait (a link that
// broke with both ends alive: the one in the middle waits for its own bridge, then gives up).
constexpr auto kBridgeConnect = kBridgeWait + kRelayStall + 10s;

}  // namespace

std::size_t relay_levels(const std::vector<RelayBranch>& branches) {
  std::size_t deepest = 0;
  for (const auto& b : branches) deepest = std::max(deepest, 1 + relay_levels(b.below));
  return deepest;
}

std::vector<RelayBranch> relay_levels_cut(std::vector<RelayBranch> branches, std::size_t levels) {
  if (levels == 0) return {};
  for (auto& b : branches) b.below = relay_levels_cut(std::move(b.below), levels - 1);
  return branches;
}

std::uint64_t relay_history(std::size_t hops) {
  constexpr std::uint64_t kPerHop = 12 * 1024 * 1024;
  return hops < 2 ? 0 : kPerHop * hops;
}

std::string relay_where(const RelayPeer& peer) {
  return peer.address + " port " + std::to_string(peer.port);
}

std::string RelayBridges::relay_on(RelayLink& link, std::size_t r, const RelayBranch& branch,
                                   std::optional<std::uint64_t> from) {
  std::string broke = serve(link, r);
  std::string to = relay_where(branch.peer);
  std::string bridged =
      from ? "bridged around it to " + to + " from offset " + std::to_string(*from) : "";
  if (broke.empty()) {
    queue_.leave(r);
    return bridged;
  }
  link.close();
  std::string said = (from ? bridged + ", which" : to) + " broke off (" + broke + ")";
  return said + bridge(branch.below, [this, r] { queue_.leave(r); });
}

std::string RelayBridges::bridge(const std::vector<RelayBranch>& below,
                                 const std::function<void()>& release) {
  if (below.empty() || lost_()) {
    release();
    return below.empty() ? "" : ", and this host has lost its upstream: not bridged";
  }
  std::vector<std::string> outcomes(below.size());
  std::latch joined(std::ptrdiff_t(below.size()));
  std::vector<std::jthread> bridges;
  try {
    for (std::size_t g = 0; g < below.size(); ++g)
      bridges.emplace_back(
          [&, g] { outcomes[g] = bridge_to(below[g], [&joined] { joined.count_down(); }); });
  } catch (const std::system_error& e) {
    for (std::size_t g = bridges.size(); g < below.size(); ++g) {
      outcomes[g] = "cannot start a thread: " + std::string(e.what());
      joined.count_down();
    }
  }
  joined.wait();
  release();
  bridges.clear();  // joins them: at the end of the stream
  std::string said;
  for (std::size_t g = 0; g < below.size(); ++g) said += (g ? "; " : ": ") + outcomes[g];
  return said;
}

std::string RelayBridges::serve(RelayLink& link, std::size_t r,
                                const std::function<void(std::size_t)>& sent) {
  for (std::optional<RelayQueue::End> how;;) {
    auto chunk = queue_.take(r, how, kKeepaliveEvery);
    if (how == RelayQueue::End::broken) {  // the next host's breaks off too, never a clean end
      if (on_break_ == OnBreak::give_up)
        link.give_up();
      else
        link.close();
      return "";
    }
    auto went = chunk ? link.send(*chunk) : how ? link.finish() : link.keepalive();
    if (!went) return went.error();
    if (chunk && sent) sent(chunk->size());
    if (how) return "";
  }
}

// A bridge to `branch`'s host; around it, to the ones below it, when it cannot be linked to.
// `joined` once it has joined the queue, or failed.
std::string RelayBridges::bridge_to(const RelayBranch& branch,
                                    const std::function<void()>& joined) {
  std::string to = relay_where(branch.peer);
  auto link = RelayLink::connect(branch.peer.address, branch.peer.port, secret_,
                                 RelayLink::Clock::now() + kBridgeConnect);
  if (!link) return "cannot bridge to " + to + ": " + link.error() + bridge(branch.below, joined);
  auto reader = queue_.join(link->offset());
  joined();
  if (!reader)
    return "cannot bridge to " + to + ": it holds offset " + std::to_string(link->offset()) +
           ", which this host no longer (or never) held";
  return relay_on(*link, *reader, branch, link->offset());
}

}  // namespace pdx
