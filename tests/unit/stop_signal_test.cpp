#include <gtest/gtest.h>

#include <memory>

#include "transport/transport.h"

namespace pdx {

TEST(StopSignal, CallbacksRunOnceOnStop) {
  StopSignal s;
  int n = 0;
  s.on_stop([&] { ++n; });
  EXPECT_FALSE(s.stopped());
  s.stop();
  s.stop();
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(n, 1);
}

TEST(StopSignal, LateCallbackRunsAtOnce) {
  StopSignal s;
  s.stop();
  int n = 0;
  s.on_stop([&] { ++n; });
  EXPECT_EQ(n, 1);
}

}  // namespace pdx

namespace pdx {

TEST(StopSignal, ClearDropsCallbacksAndWhatTheyHold) {
  StopSignal s;
  auto held = std::make_shared<int>(0);
  s.on_stop([held] { ++*held; });
  EXPECT_EQ(held.use_count(), 2);
  s.clear();
  EXPECT_EQ(held.use_count(), 1);
  s.stop();
  EXPECT_EQ(*held, 0);
}

}  // namespace pdx
