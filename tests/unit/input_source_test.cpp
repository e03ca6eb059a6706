#include "transport/input_source.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

using State = InputPiece::State;

TEST(BytesInput, HandsOutItsBytesAsTakenThenEnds) {
  BytesInput input("hello");
  auto piece = input.next();
  ASSERT_EQ(piece.state, State::data);
  EXPECT_EQ(piece.bytes, "hello");
  input.consume(2);
  EXPECT_EQ(input.next().bytes, "llo");
  input.consume(3);
  EXPECT_EQ(input.next().state, State::end);
}

TEST(BytesInput, EmptyEndsAtOnceAndFinishEndsIt) {
  EXPECT_EQ(BytesInput("").next().state, State::end);
  BytesInput input("unread");
  input.finish();
  EXPECT_EQ(input.next().state, State::end);
}

}  // namespace
}  // namespace pdx
