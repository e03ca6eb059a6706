#include "agent/link_beat.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace pdx {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(LinkBeat, BeatsEveryPeriodUntilItGoes) {
  std::atomic<int> beats = 0;
  {
    LinkBeat beat(50ms, [&] { ++beats; });
    std::this_thread::sleep_for(320ms);
  }
  int seen = beats;
  EXPECT_GE(seen, 3);
  EXPECT_LE(seen, 6);
  std::this_thread::sleep_for(120ms);
  EXPECT_EQ(beats, seen) << "none after it went";
}

TEST(LinkBeat, GoesAtOnceMidPeriod) {
  std::atomic<int> beats = 0;
  auto start = Clock::now();
  {
    LinkBeat beat(10s, [&] { ++beats; });
  }
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_EQ(beats, 0);
}

}  // namespace
}  // namespace pdx
