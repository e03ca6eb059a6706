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

Result<void> bad_step() {
  return Error{"not an archive", ErrorKind::bad_input};
}

Result<int> after_bad_step() {
  TRY(bad_step());
  return 1;
}

TEST(ResultTest, AnErrorIsAFailureUnlessSaidOtherwise) {
  EXPECT_EQ(number(false).error_kind(), ErrorKind::failure);
  EXPECT_EQ(step(false).error_kind(), ErrorKind::failure);
}

TEST(ResultTest, TryKeepsTheKind) {
  auto r = after_bad_step();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "not an archive");
  EXPECT_EQ(r.error_kind(), ErrorKind::bad_input);
  Result<std::string> s = Error{"x", ErrorKind::bad_input};
  EXPECT_EQ(s.error_kind(), ErrorKind::bad_input);
}

TEST(ResultDeathTest, AskingForTheWrongHalfAborts) {
  EXPECT_DEATH((void)number(false).value(), "value\\(\\) of an error Result");
  EXPECT_DEATH((void)number(true).error(), "error\\(\\) of a good Result");
}

}  // namespace
}  // namespace pdx
