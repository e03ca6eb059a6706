// The executor driven through the real local transport (-R exec): fan-out, results by index,
// output routing, timeouts, stdin, and the finished() promise.
#include "core/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "tests/unit/pipe_feeder.h"
#include "transport/broadcast.h"
#include "transport/local_transport.h"

namespace pdx {
namespace {

class RecordingSink final : public OutputSink {
 public:
  explicit RecordingSink(std::size_t n) : out(n), err(n), finished_count(n) {}
  void output(std::size_t i, Stream s, std::string_view bytes) override {
    std::lock_guard lock(mutex);
    (s == Stream::out ? out : err)[i].append(bytes);
  }
  void finished(std::size_t i, const HostResult&) override { ++finished_count[i]; }
  void close() override { closed = true; }

  std::mutex mutex;
  std::vector<std::string> out, err;
  std::vector<std::atomic<int>> finished_count;
  bool closed = false;
};

std::vector<Job> jobs_for(std::size_t n, const std::string& command) {
  std::vector<Job> jobs(n);
  for (std::size_t i = 0; i < n; ++i) {
    jobs[i].index = i;
    jobs[i].label = "h" + std::to_string(i);
    jobs[i].command = command;
    jobs[i].env = {{"RANK", std::to_string(i)}};
  }
  return jobs;
}

TEST(Executor, RunsEveryJobAndKeepsResultsByIndex) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(150, "echo out$RANK; echo err$RANK >&2; exit $((RANK % 7))");
  RecordingSink sink(jobs.size());
  auto results = execute(*transport, jobs, sink, {16, 2});
  ASSERT_EQ(results.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].failure, Failure::none);
    EXPECT_EQ(results[i].exit_status, static_cast<int>(i % 7));
    EXPECT_EQ(sink.out[i], "out" + std::to_string(i) + "\n");
    EXPECT_EQ(sink.err[i], "err" + std::to_string(i) + "\n");
    EXPECT_EQ(sink.finished_count[i], 1);
  }
  EXPECT_TRUE(sink.closed);
}

TEST(Executor, FanoutLimitsHowManyRunAtOnce) {
  auto transport = make_local_transport();
  auto dir = ::testing::TempDir() + "/pdx_fanout";
  std::string command = "mkdir -p " + dir + "; f=" + dir + "/$RANK; touch $f; sleep 0.05; ls " +
                        dir + " | wc -l; rm $f";
  auto jobs = jobs_for(12, command);
  RecordingSink sink(jobs.size());
  execute(*transport, jobs, sink, {3, 2});
  for (const auto& out : sink.out) EXPECT_LE(std::stoi(out), 3) << out;
}

TEST(Executor, CommandTimeoutKillsTheWholeProcessGroup) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(3, "sleep 30 & sleep 30; echo never");
  for (auto& j : jobs) j.command_timeout = std::chrono::milliseconds(200);
  RecordingSink sink(jobs.size());
  auto start = std::chrono::steady_clock::now();
  auto results = execute(*transport, jobs, sink, {64, 1});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].failure, Failure::command_timeout);
    EXPECT_EQ(sink.out[i], "");
  }
}

TEST(Executor, StdinIsBroadcastToEveryHost) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(5, "wc -c");
  test::PipeFeeder feeder(std::string(3000000, 'x'));
  Broadcast::Options small;
  small.chunk = 4096;
  small.window = 64 * 1024;  // the hosts take turns holding it
  std::shared_ptr<Broadcast> input = *Broadcast::start(feeder.fd(), jobs.size(), small);
  for (auto& j : jobs) j.stdin_source = input;
  RecordingSink sink(jobs.size());
  execute(*transport, jobs, sink, {64, 2});
  for (const auto& out : sink.out) EXPECT_EQ(std::stoi(out), 3000000);
}

TEST(Executor, SignalDeathIsReportedByName) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(1, "kill -SEGV $$");
  RecordingSink sink(1);
  auto results = execute(*transport, jobs, sink, {});
  EXPECT_EQ(results[0].signal, "SEGV");
}

// A sink whose write failed (stdout closed) stops the run as Ctrl-C does.
class FailingSink final : public OutputSink {
 public:
  void output(std::size_t, Stream, std::string_view) override { write(-1, "x", "nowhere"); }
  void finished(std::size_t, const HostResult&) override {}
};

TEST(Executor, ASinksWriteErrorStopsTheRun) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(8, "yes");
  FailingSink sink;
  auto start = std::chrono::steady_clock::now();
  auto results = execute(*transport, jobs, sink, {2, 1});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_TRUE(sink.error());
  EXPECT_EQ(sink.error()->name, "nowhere");
  for (const auto& r : results) EXPECT_EQ(r.failure, Failure::interrupted);
}

TEST(Executor, NoJobsIsFine) {
  auto transport = make_local_transport();
  RecordingSink sink(0);
  EXPECT_TRUE(execute(*transport, {}, sink, {}).empty());
  EXPECT_TRUE(sink.closed);
}

}  // namespace
}  // namespace pdx
