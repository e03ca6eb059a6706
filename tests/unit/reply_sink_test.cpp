#include "distribute/reply_sink.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(ReplySink, KeepsTheOutputAndTheEndOfStderr) {
  ReplySink sink;
  sink.output(7, Stream::out, "ab");
  sink.output(7, Stream::out, "c");
  sink.output(7, Stream::err, std::string(ReplySink::kMaxStderr, 'e') + "tail");
  EXPECT_EQ(sink.reply().out, "abc");
  EXPECT_EQ(sink.reply().err.size(), ReplySink::kMaxStderr);
  EXPECT_TRUE(sink.reply().err.ends_with("tail"));
  EXPECT_FALSE(sink.reply().overflow);
}

TEST(ReplySink, OverflowIsNoted) {
  ReplySink sink;
  sink.output(0, Stream::out, std::string(ReplySink::kMaxReply, 'x'));
  sink.output(0, Stream::out, "y");
  EXPECT_TRUE(sink.reply().overflow);
  EXPECT_EQ(sink.reply().out.size(), ReplySink::kMaxReply);
}

TEST(ReplySink, LastLine) {
  EXPECT_EQ(last_line("one\ntwo\n\n"), "two");
  EXPECT_EQ(last_line(""), "");
  EXPECT_EQ(last_line("a\x1b[0mb"), "a?[0mb");
}

}  // namespace
}  // namespace pdx
