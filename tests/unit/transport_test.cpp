// Transport::run(): open + exec of the job's command, its stdin its reader of the broadcast.
#include "transport/transport.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "tests/unit/fake_transport.h"
#include "tests/unit/pipe_feeder.h"
#include "transport/broadcast.h"

namespace pdx {
namespace {

using test::FakeHost;
using test::FakeTransport;

struct StringIo final : JobIo {
  void output(std::size_t, Stream stream, std::string_view bytes) override {
    if (stream == Stream::out) out.append(bytes);
  }
  std::string out;
};

HostResult run_one(Transport& transport, const Job& job, JobIo& io) {
  boost::asio::io_context ctx;
  StopSignal stop;
  HostResult result;
  boost::asio::co_spawn(ctx, transport.run(job, io, stop),
                        [&result](std::exception_ptr, HostResult r) { result = std::move(r); });
  ctx.run();
  return result;
}

Job job_at(std::size_t index, std::shared_ptr<Broadcast> input) {
  Job job;
  job.index = index;
  job.command = "cmd" + std::to_string(index);
  job.stdin_source = std::move(input);
  return job;
}

FakeTransport echoing_transport() {
  return FakeTransport([](const Job& job) {
    FakeHost host;
    host.open_failure = job.index == 0 ? Failure::connect : Failure::none;
    host.execs = {{}};
    host.execs[0].echo_stdin = true;
    host.execs[0].exit_status = 4;
    return host;
  });
}

TEST(TransportRun, OpensThenExecsTheJobsCommandWithItsStdin) {
  auto transport = echoing_transport();
  test::PipeFeeder feeder("some input");
  std::shared_ptr<Broadcast> input = *Broadcast::start(feeder.fd(), 2, {});
  StringIo io;
  auto result = run_one(transport, job_at(1, input), io);
  EXPECT_EQ(result.exit_status, 4);
  EXPECT_EQ(io.out, "some input");
  EXPECT_EQ(transport.commands(1), std::vector<std::string>{"cmd1"});
}

// Host 0 cannot be reached: its reader lets go of the window, so host 1 gets all of stdin
// through a window much smaller than it without waiting for host 0 to be failed as stalled.
TEST(TransportRun, AHostThatDoesNotOpenLetsGoOfItsStdin) {
  auto transport = echoing_transport();
  test::PipeFeeder feeder(std::string(1 << 20, 'x'));
  Broadcast::Options small;
  small.chunk = 4096;
  small.window = 64 * 1024;
  small.stall = std::chrono::minutes(10);
  std::shared_ptr<Broadcast> input = *Broadcast::start(feeder.fd(), 2, small);
  StringIo io;
  EXPECT_EQ(run_one(transport, job_at(0, input), io).failure, Failure::connect);
  EXPECT_TRUE(transport.commands(0).empty());
  EXPECT_EQ(run_one(transport, job_at(1, input), io).failure, Failure::none);
  EXPECT_EQ(io.out.size(), std::size_t{1} << 20);
}

}  // namespace
}  // namespace pdx
