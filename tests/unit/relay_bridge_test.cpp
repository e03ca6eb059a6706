#include "agent/relay_bridge.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace pdx {
namespace {

using namespace std::chrono_literals;

const std::string kSecret(kRelaySecretSize, 'b');

// A host below that takes a bridge, holding `holds` bytes of the stream; what it received.
struct Below {
  explicit Below(std::uint64_t holds) : listener(*relay_listen("127.0.0.1", 0, 0)) {
    taking = std::thread([this, holds] {
      auto link =
          RelayLink::accept(listener.fd.get(), kSecret, RelayLink::Clock::now() + 10s, holds);
      if (!link) return void(got = "accept: " + link.error());
      for (;;) {
        auto chunk = link->receive(5s);
        if (!chunk) return void(got = "receive: " + chunk.error());
        if (!*chunk) break;
        got += **chunk;
      }
      link->passed_on();
    });
  }
  ~Below() {
    if (taking.joinable()) taking.join();
  }
  RelayPeer peer() const { return {"127.0.0.1", listener.port}; }
  RelayListener listener;
  std::string got;
  std::thread taking;
};

// A port nobody listens on: a host gone.
RelayPeer gone() {
  auto taken = relay_listen("127.0.0.1", 0, 0);
  return {"127.0.0.1", taken->port};
}

TEST(RelayBridges, TheHistoryCoversTheHopsToTheFarthestHostBridgedTo) {
  RelayPeer p{"a", 1};
  std::vector<RelayBranch> chain{{p, {{p, {{p, {}}}}}}};
  EXPECT_EQ(relay_levels({}), 0u);
  EXPECT_EQ(relay_levels(chain), 3u);
  EXPECT_EQ(relay_levels(relay_levels_cut(chain, 2)), 2u);
  EXPECT_EQ(relay_levels(relay_levels_cut(chain, 0)), 0u);
  EXPECT_EQ(relay_history(1), 0u) << "nobody to bridge to";
  EXPECT_EQ(relay_history(2), 24u << 20);
  EXPECT_EQ(relay_history(3), 36u << 20);
}

TEST(RelayBridges, AroundAHostThatCannotBeLinkedToTheOnesBelowItAreBridgedTo) {
  RelayQueue queue(1, RelayQueue::kHistory);
  std::string stream(3 * 1024 * 1024 + 1, 's');
  for (std::size_t i = 0; i < stream.size(); ++i) stream[i] = char(i % 251);
  auto put = [&](std::size_t from, std::size_t to) {  // in chunks a link may carry
    for (std::size_t at = from; at < to; at += kRelayMaxChunk)
      ASSERT_TRUE(queue.put(stream.substr(at, std::min(kRelayMaxChunk, to - at))));
  };
  put(0, 2 * 1024 * 1024);
  Below left(100), right(2 * 1024 * 1024);
  RelayPeer dead = gone();
  std::vector<RelayBranch> below{{dead, {{left.peer(), {}}, {right.peer(), {}}}}};
  RelayBridges bridges(queue, kSecret, [] { return false; });
  bool released = false;
  std::string said;
  std::thread bridging([&] { said = bridges.bridge(below, [&] { released = true; }); });
  // Reader 0 is let go once both have joined: the rest may then go in.
  for (int i = 0; i < 500 && !released; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(released);
  queue.leave(0);
  put(2 * 1024 * 1024, stream.size());
  queue.end(RelayQueue::End::whole);
  bridging.join();
  std::string where_dead = relay_where(dead);
  EXPECT_EQ(said, ": cannot bridge to " + where_dead + ": cannot connect to " + where_dead +
                      ": Connection refused: bridged around it to " + relay_where(left.peer()) +
                      " from offset 100; bridged around it to " + relay_where(right.peer()) +
                      " from offset 2097152");
  left.taking.join();
  right.taking.join();
  EXPECT_TRUE(left.got == stream.substr(100)) << left.got.size();
  EXPECT_TRUE(right.got == stream.substr(2 * 1024 * 1024)) << right.got.size();
}

}  // namespace
}  // namespace pdx
