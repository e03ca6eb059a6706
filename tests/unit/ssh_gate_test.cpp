#include "transport/ssh_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace pdx {
namespace {

using namespace std::chrono_literals;
using Clock = SetupGate::Clock;

// A clock the test moves.
struct FakeClock {
  Clock::time_point now = Clock::time_point{} + std::chrono::hours(1);
  std::function<Clock::time_point()> reader() {
    return [this] { return now; };
  }
};

TEST(SetupGate, AdmitsUpToTheLimitThenHandsSlotsOverInOrder) {
  SetupGate gate(2, 1000);  // a window of 2: the ceiling
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(3); }));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(4); }));
  EXPECT_TRUE(admitted.empty());
  gate.set_up();
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.leave(false);
  EXPECT_EQ(admitted, (std::vector<int>{3, 4}));
  gate.leave(false);
  gate.leave(false);
  EXPECT_TRUE(gate.enter([] {}));  // the slots came back
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([] {}));
}

// 5 descriptors: two sessions setting up (2 each), then, once both are set up (1 each), a
// third; a fourth only when one of them closes.
TEST(SetupGate, SessionsWaitForDescriptors) {
  SetupGate gate(100, 5);
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(3); }));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(4); }));
  gate.set_up();  // 2 free
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.set_up();  // 1 free
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.leave(true);  // 2 free
  EXPECT_EQ(admitted, (std::vector<int>{3, 4}));
}

TEST(SetupGate, ANewcomerDoesNotPassThoseWaiting) {
  SetupGate gate(100, 3);
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(2); }));
  gate.set_up();  // 2 free: the first in line
  EXPECT_EQ(admitted, std::vector<int>{2});
  EXPECT_FALSE(gate.enter([] {}));
}

// Setups far under the timeout: the window starts at kFirstWindow and doubles per window of
// setups (one more per setup), up to the ceiling.
TEST(SetupGate, GrowsWhileSetupsAreFast) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  EXPECT_EQ(gate.window(), SetupGate::kFirstWindow);
  for (int i = 0; i < 8; ++i) {
    auto started = clock.now;
    clock.now += 50ms;
    gate.paced(started, 10s);
  }
  EXPECT_EQ(gate.window(), 16u);
  for (int i = 0; i < 200; ++i) gate.paced(clock.now - 50ms, 10s);
  EXPECT_EQ(gate.window(), 96u);
}

// Nearer the bar (a third of the timeout), slower growth: at 72% of it, 0.56 of a
// session per setup.
TEST(SetupGate, GrowsLessNearTheBar) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  gate.paced(clock.now, 10s);  // 9
  for (int i = 0; i < 10; ++i) gate.paced(clock.now - 2400ms, 10s);
  EXPECT_EQ(gate.window(), 14u);
}

// A setup over half its timeout shrinks the window by 30%; those admitted before the shrink
// were paced by the larger window and do not shrink it again.
TEST(SetupGate, ShrinksOncePerWindowWhenSetupsAreSlow) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  for (int i = 0; i < 32; ++i) gate.paced(clock.now, 10s);  // took 0: fast, window 40
  EXPECT_EQ(gate.window(), 40u);
  auto before = clock.now;
  clock.now += 6s;
  gate.paced(before, 10s);
  EXPECT_EQ(gate.window(), 28u);
  gate.paced(before, 10s);  // started before the shrink
  gate.paced(before, 10s);
  EXPECT_EQ(gate.window(), 28u);
  auto after = clock.now;
  clock.now += 6s;
  gate.paced(after, 10s);  // started after it: still slow
  EXPECT_EQ(gate.window(), 19u);
}

// Setups each under half the timeout but over the bar (a third of it): the window shrinks once
// their smoothed time passes the bar, not at the first.
TEST(SetupGate, ShrinksWhenTheSmoothedTimePassesTheBar) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  for (int i = 0; i < 32; ++i) gate.paced(clock.now, 10s);  // window 40
  for (int i = 0; i < 13; ++i) gate.paced(clock.now - 4s, 10s);
  EXPECT_EQ(gate.window(), 40u);
  gate.paced(clock.now - 4s, 10s);
  EXPECT_EQ(gate.window(), 28u);
}

// Setups taking their whole timeout shrink the window to one, never below; fast ones grow it
// again, by one per window once it has shrunk.
TEST(SetupGate, NeverBelowOne) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  for (int i = 0; i < 20; ++i) {
    auto started = clock.now;
    clock.now += 10s;
    gate.paced(started, 10s);
  }
  EXPECT_EQ(gate.window(), 1u);
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([] {}));
  gate.paced(clock.now, 10s);  // fast: 1 + 1/1
  EXPECT_EQ(gate.window(), 2u);
}

// With the window shrunk below the sessions in flight, none is admitted until enough left;
// every one waiting is admitted in the end.
TEST(SetupGate, NeverStarves) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(gate.enter([] {}));
  int admitted = 0;
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(gate.enter([&] { ++admitted; }));
  auto started = clock.now;
  clock.now += 6s;
  gate.paced(started, 10s);  // 8 -> 5.6
  gate.set_up();             // 7 in flight: no room
  EXPECT_EQ(admitted, 0);
  gate.paced(started, 10s);  // admitted before the shrink: ignored
  gate.set_up();
  gate.set_up();  // 5 in flight
  EXPECT_EQ(admitted, 0);
  gate.set_up();  // 4
  EXPECT_EQ(admitted, 1);
  for (int i = 0; i < 30 && admitted < 20; ++i) gate.set_up();
  EXPECT_EQ(admitted, 20);
}

// Hosts whose own login is slow (here 4 s of 10) do not shrink the window: the bar is 1.5x the
// fastest setup seen, up to half the timeout. Past half, they do.
TEST(SetupGate, HostsSlowOnTheirOwnDoNotShrinkIt) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  for (int i = 0; i < 16; ++i) gate.paced(clock.now - 4s, 10s);
  EXPECT_GT(gate.window(), 8u);
  auto grown = gate.window();
  gate.paced(clock.now - 5900ms, 10s);  // over half of 10 s
  EXPECT_LT(gate.window(), grown);
}

// The timeout a setup is paced against is its own: 4 s is fast for 30 s, 6 s slow for 10 s, the
// kDefaultTimeout of a setup given none.
TEST(SetupGate, PacedAgainstTheSetupsOwnTimeout) {
  FakeClock clock;
  SetupGate gate(96, 100000, clock.reader());
  gate.paced(clock.now - 100ms, 10s);  // the fastest seen: 0.1 s
  gate.paced(clock.now - 4s, 30s);
  EXPECT_EQ(gate.window(), 10u);
  clock.now += 1s;
  gate.paced(clock.now - 6s, 0s);
  EXPECT_EQ(gate.window(), 7u);
}

}  // namespace
}  // namespace pdx
