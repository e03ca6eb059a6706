#include "archive/size.h"

#include <gtest/gtest.h>

namespace pdx {

TEST(ParseSize, UnitsAsSplitReadsThem) {
  EXPECT_EQ(*parse_size("512"), 512u);
  EXPECT_EQ(*parse_size("512K"), 512u * 1024);
  EXPECT_EQ(*parse_size("2000M"), 2000ull << 20);
  EXPECT_EQ(*parse_size("1G"), 1ull << 30);
  EXPECT_EQ(*parse_size("1g"), 1ull << 30);
  EXPECT_EQ(*parse_size("3MiB"), 3ull << 20);
  EXPECT_EQ(*parse_size("1KB"), 1000u);
  EXPECT_EQ(*parse_size("2MB"), 2000000u);
  EXPECT_EQ(*parse_size("1E"), 1ull << 60);
}

TEST(ParseSize, RejectsWhatSplitRejects) {
  for (const char* bad : {"", "M", "0", "-1", "1X", "1KiBB", "1.5G", "20E"}) {
    auto size = parse_size(bad);
    EXPECT_FALSE(size.ok()) << bad;
    if (!size.ok()) {
      EXPECT_NE(size.error().find("invalid size"), std::string::npos);
    }
  }
}

TEST(HumanSize, PicksTheUnit) {
  EXPECT_EQ(human_size(512), "512 B");
  EXPECT_EQ(human_size(1536), "1.5 KiB");
  EXPECT_EQ(human_size(2ull << 30), "2.0 GiB");
}

}  // namespace pdx
