#include "base/result.h"

#include <gtest/gtest.h>

#include <memory>

namespace pdx {
namespace {

Result<int> number(bool ok) {
  if (!ok) return Error{"no number"};
  return 7;
}

Result<void> step(bool ok) {
  if (!ok) return Error{"step failed"};
  return {};
}

Result<int> twice(bool ok) {
  int n = TRY(number(ok));
  return 2 * n;
}

Result<std::string> steps(bool first, bool second) {
  TRY(step(first));
  TRY(step(second));
  return std::string("both");
}

Result<std::unique_ptr<int>> boxed() {
  return std::make_unique<int>(3);
}

Result<int> unboxed() {
  auto box = TRY(boxed());  // a move-only value is moved out
  return *box;
}

TEST(ResultTest, TryYieldsTheValue) {
  auto r = twice(true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 14);
  EXPECT_EQ(*unboxed(), 3);
}

TEST(ResultTest, TryPassesTheErrorUp) {
  auto r = twice(false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "no number");
}

TEST(ResultTest, TryOnVoidStopsAtTheFirstError) {
  EXPECT_EQ(*steps(true, true), "both");
  EXPECT_EQ(steps(false, true).error(), "step failed");
  EXPECT_EQ(steps(true, false).error(), "step failed");
}

TEST(ResultDeathTest, AskingForTheWrongHalfAborts) {
  EXPECT_DEATH((void)number(false).value(), "value\\(\\) of an error Result");
  EXPECT_DEATH((void)number(true).error(), "error\\(\\) of a good Result");
}

}  // namespace
}  // namespace pdx
