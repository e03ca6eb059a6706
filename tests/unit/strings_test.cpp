#include "base/strings.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(StringsTest, Trim) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(StringsTest, SplitBlanks) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(split_blanks("  host slots=8\t# c "), (V{"host", "slots=8", "#", "c"}));
  EXPECT_EQ(split_blanks(" \n "), V{});
  EXPECT_EQ(split_blanks("one"), V{"one"});
}

TEST(StringsTest, SplitLines) {
  using Lines = std::vector<std::string_view>;
  EXPECT_EQ(split_lines("a\n\nb c\n"), (Lines{"a", "", "b c"}));
  EXPECT_EQ(split_lines("a\nlast"), (Lines{"a", "last"}));
  EXPECT_EQ(split_lines(""), Lines{});
  EXPECT_EQ(split_lines("\n"), Lines{""});
}

TEST(StringsTest, Join) {
  EXPECT_EQ(join({"a", "b", "c"}, " "), "a b c");
  EXPECT_EQ(join({"", "b"}, ","), ",b");
  EXPECT_EQ(join({}, ","), "");
}

}  // namespace
}  // namespace pdx
