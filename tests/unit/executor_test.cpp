// The executor: fan-out, results by index, ordering, Ctrl-C, failures and per-host tasks through
// a scripted transport (tests/unit/fake_transport.h: no processes, no sleeps); timeouts, stdin,
// signals and several execs on one session through the real local transport (-R exec).
#include "core/executor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <stdexcept>

#include "tests/unit/fake_transport.h"
#include "tests/unit/pipe_feeder.h"
#include "transport/broadcast.h"
#include "transport/input_source.h"
#include "transport/local_transport.h"

namespace pdx {
namespace {

using std::chrono::milliseconds;
using test::FakeExec;
using test::FakeHost;
using test::FakeTransport;

class RecordingSink final : public OutputSink {
 public:
  explicit RecordingSink(std::size_t n) : out(n), err(n), finished_count(n) {}
  void output(std::size_t i, Stream s, std::string_view bytes) override {
    std::lock_guard lock(mutex);
    (s == Stream::out ? out : err)[i].append(bytes);
  }
  void finished(std::size_t i, const HostResult&) override {
    std::lock_guard lock(mutex);
    ++finished_count[i];
    order.push_back(i);
  }
  void close() override { closed = true; }

  std::mutex mutex;
  std::vector<std::string> out, err;
  std::vector<int> finished_count;
  std::vector<std::size_t> order;  // of finished()
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

FakeExec exec_after(milliseconds delay, std::string out = "", std::string err = "",
                    int status = 0) {
  FakeExec exec;
  exec.delay = delay;
  exec.out = std::move(out);
  exec.err = std::move(err);
  exec.exit_status = status;
  return exec;
}

ExecRequest request(std::string command, InputSource* input, std::vector<EnvVar> env = {}) {
  ExecRequest r;
  r.command = std::move(command);
  r.env = std::move(env);
  r.input = input;
  return r;
}

FakeHost answering(FakeExec exec) {
  FakeHost host;
  host.execs = {std::move(exec)};
  return host;
}

TEST(Executor, RunsEveryJobAndKeepsResultsByIndex) {
  FakeTransport transport([](const Job& job) {
    auto i = std::to_string(job.index);
    return answering(exec_after(milliseconds(job.index % 5), "out" + i + "\n", "err" + i + "\n",
                                static_cast<int>(job.index % 7)));
  });
  auto jobs = jobs_for(150, "cmd");
  RecordingSink sink(jobs.size());
  auto results = execute(transport, jobs, sink, {16, 2});
  ASSERT_EQ(results.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].failure, Failure::none);
    EXPECT_EQ(results[i].exit_status, static_cast<int>(i % 7));
    EXPECT_EQ(sink.out[i], "out" + std::to_string(i) + "\n");
    EXPECT_EQ(sink.err[i], "err" + std::to_string(i) + "\n");
    EXPECT_EQ(sink.finished_count[i], 1);
    EXPECT_EQ(transport.opens(i), 1u);
    EXPECT_EQ(transport.commands(i), std::vector<std::string>{"cmd"});
  }
  EXPECT_TRUE(sink.closed);
}

TEST(Executor, FanoutLimitsHowManyRunAtOnce) {
  FakeTransport transport([](const Job&) { return answering(exec_after(milliseconds(20))); });
  auto jobs = jobs_for(12, "cmd");
  RecordingSink sink(jobs.size());
  execute(transport, jobs, sink, {3, 2});
  EXPECT_EQ(transport.most_at_once(), 3u);
  EXPECT_EQ(sink.order.size(), 12u);
}

TEST(Executor, ASlowHostHoldsUpNoOther) {
  FakeTransport transport(
      [](const Job& job) { return answering(exec_after(milliseconds(job.index == 0 ? 300 : 1))); });
  auto jobs = jobs_for(20, "cmd");
  RecordingSink sink(jobs.size());
  execute(transport, jobs, sink, {2, 1});
  ASSERT_EQ(sink.order.size(), 20u);
  EXPECT_EQ(sink.order.back(), 0u);  // the other worker ran the 19 others meanwhile
}

TEST(Executor, FailuresAtOpenAndExecAreTheHostsResults) {
  FakeTransport transport([](const Job& job) {
    FakeHost host;
    if (job.index == 1) {
      host.open_failure = Failure::connect;
      host.open_error = "connect to port 22: Connection refused";
    }
    FakeExec exec;
    if (job.index == 2) {
      exec.failure = Failure::command_timeout;
      exec.error = "command timed out after 1s";
    }
    host.execs = {exec};
    return host;
  });
  auto jobs = jobs_for(3, "cmd");
  RecordingSink sink(jobs.size());
  auto results = execute(transport, jobs, sink, {});
  EXPECT_EQ(results[0].failure, Failure::none);
  EXPECT_EQ(results[1].failure, Failure::connect);
  EXPECT_EQ(results[1].error, "connect to port 22: Connection refused");
  EXPECT_TRUE(transport.commands(1).empty());
  EXPECT_EQ(results[2].failure, Failure::command_timeout);
  for (int count : sink.finished_count) EXPECT_EQ(count, 1);
}

TEST(Executor, ATransportThatThrowsFailsOnlyItsHost) {
  FakeTransport transport([](const Job& job) {
    if (job.index == 1) throw std::runtime_error("a transport bug");
    return answering(FakeExec{});
  });
  auto jobs = jobs_for(3, "cmd");
  RecordingSink sink(jobs.size());
  auto results = execute(transport, jobs, sink, {});
  EXPECT_EQ(results[0].failure, Failure::none);
  EXPECT_EQ(results[1].failure, Failure::local);
  EXPECT_EQ(results[1].error, "a transport bug");
  EXPECT_EQ(results[2].failure, Failure::none);
}

// Ctrl-C (SIGINT to the process, taken by the executor's signal thread): running hosts end as
// interrupted, the others never start, and every host is finished() once.
TEST(Executor, CtrlCStopsWhatRunsAndStartsNothingMore) {
  FakeTransport transport([](const Job& job) {
    FakeExec exec;
    exec.delay = std::chrono::minutes(10);
    if (job.index == 0) exec.at_start = [] { ::kill(::getpid(), SIGINT); };
    return answering(exec);
  });
  auto jobs = jobs_for(6, "cmd");
  RecordingSink sink(jobs.size());
  auto start = std::chrono::steady_clock::now();
  auto results = execute(transport, jobs, sink, {2, 1});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].failure, Failure::interrupted) << i;
    EXPECT_EQ(sink.finished_count[i], 1);
  }
  EXPECT_EQ(results[0].error, "interrupted");
  EXPECT_EQ(results[5].error, "interrupted before it started");
  EXPECT_EQ(transport.opens(5), 0u);
}

// A SignalHook that lets the run go on (pdsh's first Ctrl-C): it sees the running jobs, every
// host ends as it would have; one that stops it (SIGTERM) stops the run as without a hook.
TEST(Executor, ASignalHookDecidesWhetherASignalStopsTheRun) {
  FakeTransport transport([](const Job& job) {
    FakeExec exec;
    exec.delay = job.index == 0 ? std::chrono::milliseconds(300) : std::chrono::minutes(10);
    if (job.index == 0) exec.at_start = [] { ::kill(::getpid(), SIGINT); };
    if (job.index == 1) exec.at_start = [] { ::kill(::getpid(), SIGTERM); };
    return answering(exec);
  });
  auto jobs = jobs_for(2, "cmd");
  RecordingSink sink(jobs.size());
  std::vector<int> signals;
  std::vector<std::size_t> running_at_sigint;
  SignalHook hook = [&](int signal, const std::vector<std::size_t>& running) {
    signals.push_back(signal);
    if (signal != SIGINT) return true;
    running_at_sigint = running;
    return false;
  };
  // One job at a time: the SIGINT while job 0 runs, the SIGTERM once job 1 has started.
  auto results = execute(transport, jobs, sink, {1, 1}, hook);
  EXPECT_EQ(signals, (std::vector<int>{SIGINT, SIGTERM}));
  EXPECT_EQ(running_at_sigint, std::vector<std::size_t>{0});
  EXPECT_EQ(results[0].failure, Failure::none);
  EXPECT_EQ(results[1].failure, Failure::interrupted);
}

// Several operations on one session: the task's result is the host's.
TEST(Executor, ATaskRunsSeveralOperationsOnOneSession) {
  FakeTransport transport([](const Job& job) {
    FakeHost host;
    FakeExec first, second;
    first.out = "listed\n";
    second.echo_stdin = true;
    second.exit_status = static_cast<int>(job.index);
    host.execs = {first, second};
    return host;
  });
  auto jobs = jobs_for(4, "unused");
  RecordingSink sink(jobs.size());
  auto results =
      execute_tasks(transport, jobs, sink, {2, 2},
                    [](Session& session, const Job& job, JobIo& io,
                       StopSignal& stop) -> boost::asio::awaitable<HostResult> {
                      HostResult listed = co_await session.exec(request("list", nullptr), io, stop);
                      if (listed.failure != Failure::none) co_return listed;
                      BytesInput input("frames of " + job.label + "\n");
                      co_return co_await session.exec(request("receive", &input), io, stop);
                    });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].exit_status, static_cast<int>(i));
    EXPECT_EQ(transport.opens(i), 1u);
    EXPECT_EQ(transport.commands(i), (std::vector<std::string>{"list", "receive"}));
    EXPECT_EQ(sink.out[i], "listed\nframes of h" + std::to_string(i) + "\n");
  }
}

TEST(Executor, ATaskIsNotRunWhereTheSessionDidNotOpen) {
  FakeTransport transport([](const Job& job) {
    FakeHost host;
    if (job.index == 0) host.open_failure = Failure::auth;
    return host;
  });
  auto jobs = jobs_for(2, "cmd");
  RecordingSink sink(jobs.size());
  std::atomic<int> tasks{0};
  auto results = execute_tasks(
      transport, jobs, sink, {},
      [&tasks](Session&, const Job&, JobIo&, StopSignal&) -> boost::asio::awaitable<HostResult> {
        ++tasks;
        co_return HostResult{};
      });
  EXPECT_EQ(results[0].failure, Failure::auth);
  EXPECT_EQ(results[1].failure, Failure::none);
  EXPECT_EQ(tasks, 1);
}

TEST(Executor, NoJobsIsFine) {
  FakeTransport transport([](const Job&) { return FakeHost{}; });
  RecordingSink sink(0);
  EXPECT_TRUE(execute(transport, {}, sink, {}).empty());
  EXPECT_TRUE(sink.closed);
}

// The real local transport: processes, their environment, timeouts, signals, stdin.

TEST(ExecutorLocal, RunsCommandsWithTheirEnvironment) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(20, "echo out$RANK; echo err$RANK >&2; exit $((RANK % 7))");
  RecordingSink sink(jobs.size());
  auto results = execute(*transport, jobs, sink, {8, 2});
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].exit_status, static_cast<int>(i % 7));
    EXPECT_EQ(sink.out[i], "out" + std::to_string(i) + "\n");
    EXPECT_EQ(sink.err[i], "err" + std::to_string(i) + "\n");
  }
}

TEST(ExecutorLocal, CommandTimeoutKillsTheWholeProcessGroup) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(3, "sleep 30 & sleep 30; echo never");
  for (auto& j : jobs) j.command_timeout = milliseconds(200);
  RecordingSink sink(jobs.size());
  auto start = std::chrono::steady_clock::now();
  auto results = execute(*transport, jobs, sink, {64, 1});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].failure, Failure::command_timeout);
    EXPECT_EQ(sink.out[i], "");
  }
}

TEST(ExecutorLocal, StdinIsBroadcastToEveryHost) {
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

TEST(ExecutorLocal, SignalDeathIsReportedByName) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(1, "kill -SEGV $$");
  RecordingSink sink(1);
  auto results = execute(*transport, jobs, sink, {});
  EXPECT_EQ(results[0].signal, "SEGV");
}

TEST(ExecutorLocal, ATaskRunsOneProcessPerExecEachWithItsOwnStdin) {
  auto transport = make_local_transport();
  auto jobs = jobs_for(3, "unused");
  RecordingSink sink(jobs.size());
  auto results = execute_tasks(
      *transport, jobs, sink, {},
      [](Session& session, const Job& job, JobIo& io,
         StopSignal& stop) -> boost::asio::awaitable<HostResult> {
        BytesInput first("one\n");
        std::vector<EnvVar> env = {{"X", "a b"}};  // (built inside co_await: GCC 12 fails)
        ExecRequest with_env = request("cat; echo \"$X\"", &first, env);
        co_await session.exec(with_env, io, stop);
        BytesInput second(job.label + "\n");
        co_return co_await session.exec(request("cat; exit 3", &second), io, stop);
      });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(results[i].exit_status, 3);
    EXPECT_EQ(sink.out[i], "one\na b\nh" + std::to_string(i) + "\n");
  }
}

// A sink whose write failed (stdout closed) stops the run as Ctrl-C does.
class FailingSink final : public OutputSink {
 public:
  void output(std::size_t, Stream, std::string_view) override { write(-1, "x", "nowhere"); }
  void finished(std::size_t, const HostResult&) override {}
};

TEST(ExecutorLocal, ASinksWriteErrorStopsTheRun) {
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

}  // namespace
}  // namespace pdx
