#include <gtest/gtest.h>

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
