#include "transport/signals.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(Signals, NamesBothWays) {
  EXPECT_EQ(signal_number("SIGTERM"), 15);
  EXPECT_EQ(signal_number("KILL"), 9);
  EXPECT_EQ(signal_number("NOPE"), 0);
  EXPECT_EQ(signal_name(11), "SEGV");
  EXPECT_EQ(signal_name(64), "64");
}

}  // namespace
}  // namespace pdx
