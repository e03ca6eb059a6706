#include "transport/seconds.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(FormatSeconds, WholeAndFractional) {
  EXPECT_EQ(format_seconds(std::chrono::milliseconds(10000)), "10s");
  EXPECT_EQ(format_seconds(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(format_seconds(std::chrono::milliseconds(300)), "0.3s");
}

}  // namespace
}  // namespace pdx
