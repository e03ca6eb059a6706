#include "agent/wide_pipe.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "agent/agent_protocol.h"
#include "base/fd.h"

namespace pdx {
namespace {

struct Pipe {
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read = Fd(fds[0]);
    write = Fd(fds[1]);
  }
  int size() const { return ::fcntl(read.get(), F_GETPIPE_SZ); }
  Fd read, write;
};

TEST(WidePipe, WidenedPipeHoldsADataFrame) {
  Pipe pipe;
  widen_pipe(pipe.write.get());
  EXPECT_GE(pipe.size(), static_cast<int>(kDataChunk));
  widen_pipe(pipe.read.get());  // its other end: the same pipe, counted once
  widen_pipe(-1);               // not a pipe: nothing happens
}

TEST(WidePipe, AtMostAQuarterOfTheUsersPipeBudgetIsHeldWideAtOnce) {
  std::size_t at_most = wide_pipes_at_most();
  ASSERT_GE(at_most, 1u);
  ASSERT_LE(at_most, 64u) << "a soft limit above Linux's default: the test would take too long";
  std::vector<Pipe> pipes(at_most + 2);
  for (auto& pipe : pipes) widen_pipe(pipe.write.get());
  for (std::size_t i = 0; i < at_most; ++i)
    EXPECT_GE(pipes[i].size(), static_cast<int>(kDataChunk)) << i;
  EXPECT_LT(pipes[at_most].size(), static_cast<int>(kDataChunk));
  EXPECT_LT(pipes[at_most + 1].size(), static_cast<int>(kDataChunk));

  pipes.erase(pipes.begin(), pipes.begin() + 2);  // two wide ones closed: two may be widened
  Pipe more[3];
  for (auto& pipe : more) widen_pipe(pipe.write.get());
  EXPECT_GE(more[0].size(), static_cast<int>(kDataChunk));
  EXPECT_GE(more[1].size(), static_cast<int>(kDataChunk));
  EXPECT_LT(more[2].size(), static_cast<int>(kDataChunk));
}

}  // namespace
}  // namespace pdx
