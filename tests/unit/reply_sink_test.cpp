#include "distribute/reply_sink.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(ReplySink, KeepsEachHostsOutputAndTheEndOfStderr) {
  ReplySink sink(2);
  sink.output(0, Stream::out, "ab");
  sink.output(1, Stream::out, "x");
  sink.output(0, Stream::out, "c");
  sink.output(0, Stream::err, std::string(ReplySink::kMaxStderr, 'e') + "tail");
  HostResult r;
  r.exit_status = 3;
  sink.finished(0, r);
  EXPECT_EQ(sink.replies()[0].out, "abc");
  EXPECT_EQ(sink.replies()[1].out, "x");
  EXPECT_EQ(sink.replies()[0].err.size(), ReplySink::kMaxStderr);
  EXPECT_TRUE(sink.replies()[0].err.ends_with("tail"));
  EXPECT_EQ(sink.replies()[0].result.exit_status, 3);
}

TEST(ReplySink, OverflowIsNoted) {
  ReplySink sink(1);
  sink.output(0, Stream::out, std::string(ReplySink::kMaxReply, 'x'));
  sink.output(0, Stream::out, "y");
  EXPECT_TRUE(sink.replies()[0].overflow);
  EXPECT_EQ(sink.replies()[0].out.size(), ReplySink::kMaxReply);
}

TEST(ReplySink, LastLine) {
  EXPECT_EQ(last_line("one\ntwo\n\n"), "two");
  EXPECT_EQ(last_line(""), "");
  EXPECT_EQ(last_line("a\x1b[0mb"), "a?[0mb");
}

}  // namespace
}  // namespace pdx
