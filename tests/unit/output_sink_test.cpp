// What every sink shares (core/output_sink.cpp): checked writes and the first error, seen
// through the prefix sink.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "base/fd.h"
#include "core/output.h"

namespace pdx {
namespace {

TEST(OutputSink, AFullDiskIsTheErrorAndStopsTheRunOnce) {
  Fd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  ASSERT_TRUE(full);
  auto sink = make_prefix_sink({"a"}, Prefix::yes, Colour::no, {full.get(), 2});
  int stops = 0;
  sink->on_error([&] { ++stops; });
  sink->output(0, Stream::out, "one\n");
  sink->output(0, Stream::out, "two\n");
  sink->finished(0, {});
  EXPECT_EQ(stops, 1);
  ASSERT_TRUE(sink->error());
  EXPECT_FALSE(sink->error()->broken_pipe());
  EXPECT_EQ(sink->error()->message(), "cannot write to standard output: No space left on device");
}

TEST(OutputSink, AClosedPipeIsABrokenPipe) {
  std::signal(SIGPIPE, SIG_IGN);  // as execute() does
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  Fd read_end(p[0]), write_end(p[1]);
  read_end.reset();
  auto sink = make_prefix_sink({"a"}, Prefix::yes, Colour::no, {1, write_end.get()});
  sink->output(0, Stream::err, "oops\n");
  ASSERT_TRUE(sink->error());
  EXPECT_TRUE(sink->error()->broken_pipe());
  EXPECT_EQ(sink->error()->name, "standard error");
}

TEST(OutputSink, NoErrorWhenEverythingWasWritten) {
  auto sink = make_prefix_sink({"a"}, Prefix::yes, Colour::no, {-1, -1});
  sink->finished(0, {});
  EXPECT_FALSE(sink->error());
}

TEST(WriteAll, ReturnsTheErrno) {
  Fd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  EXPECT_EQ(write_all(full.get(), "x"), ENOSPC);
  EXPECT_EQ(write_all(-1, "x"), EBADF);
  EXPECT_EQ(write_all(full.get(), ""), 0);
}

}  // namespace
}  // namespace pdx
