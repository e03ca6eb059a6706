#include "preflight/preflight.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace pdx {
namespace {

TEST(Preflight, ClockOffsetFromTheFirstLine) {
  auto now = std::chrono::system_clock::now();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  auto ahead = clock_offset_ms("clock=" + std::to_string(ns + 1'500'000'000) + "\nos=x\n", now);
  ASSERT_TRUE(ahead);
  EXPECT_NEAR(*ahead, 1500, 1);
  auto s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  auto seconds = clock_offset_ms("clock=" + std::to_string(s - 10), now);  // date without %N
  ASSERT_TRUE(seconds);
  EXPECT_NEAR(*seconds, -10000, 1000);
  EXPECT_FALSE(clock_offset_ms("clock=%N\n", now));
  EXPECT_FALSE(clock_offset_ms("os=x\n", now));
}

}  // namespace
}  // namespace pdx
