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

TEST(ReplySink, AReceiptsFailuresAndErrorGoToTheHostsReport) {
  ReplySink::Reply reply;
  reply.out = encode_frame(FrameType::failed, encode(Failed{"a", "cannot write"})) +
              encode_frame(FrameType::summary, encode(Summary{2, 10, 1}));
  std::string error;
  std::vector<Failed> failed{{"z", "earlier"}};
  Summary summary = take_receipt(reply, error, failed);
  EXPECT_EQ(summary.files, 2u);
  EXPECT_EQ(summary.bytes, 10u);
  EXPECT_EQ(error, "");
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[1].path, "a");
  reply.out = "x";
  take_receipt(reply, error, failed);
  EXPECT_NE(error, "");
}

}  // namespace
}  // namespace pdx
