#include "core/executor.h"

#include <pthread.h>

#include "base/awaitable.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "core/io_threads.h"

namespace asio = boost::asio;

namespace pdx {

namespace {

// How long the first signal's stop may run before a later signal ends pdx: the hosts' kill of
// the commands cut short (transport/ssh_channel.cpp's kKillTime, 2 s), and a margin.
constexpr std::chrono::milliseconds kStopGrace{3000};

// SIGINT, SIGTERM and SIGHUP are blocked in every thread of the run and taken by one thread of
// their own with sigtimedwait, so an interrupt is seen even when every io_context thread is
// busy (or blocked writing to a terminal that stopped reading). First signal: `interrupt`,
// which may let the run go on (returns false): the next signal is then a first one again.
// A later one (DeepSpeed sends SIGTERM 0.1 s after SIGINT) exits with 130, but not before
// kStopGrace after the first: cutting the remote kill short would leave the commands running.
// Between signals, `tick` is called every 50 ms. The run's end wakes the thread with SIGRTMIN
// (blocked as the others), so it does not wait out a period.
class SignalThread {
 public:
  SignalThread(std::function<bool(int signal)> interrupt, std::function<void()> tick) {
    sigemptyset(&set_);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGRTMIN}) sigaddset(&set_, s);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
    thread_ = std::thread([this, interrupt = std::move(interrupt), tick = std::move(tick)] {
      using Clock = std::chrono::steady_clock;
      std::optional<Clock::time_point> first, leave;  // the first signal; when a later one exits
      while (!done_) {
        timespec period{0, 50'000'000};
        int signal = sigtimedwait(&set_, nullptr, &period);
        if (leave && Clock::now() >= *leave) std::_Exit(130);
        if (signal == SIGRTMIN) continue;
        if (signal <= 0) {
          tick();
          continue;
        }
        if (first) {
          leave = *first + kStopGrace;
          if (Clock::now() >= *leave) std::_Exit(130);
          continue;
        }
        if (interrupt(signal)) first = Clock::now();
      }
    });
  }
  ~SignalThread() {
    done_ = true;
    pthread_kill(thread_.native_handle(), SIGRTMIN);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t set_, previous_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// What a worker does with one job, on its strand.
using HostWork = std::function<asio::awaitable<HostResult>(const Job&, StopSignal&)>;

class Run {
 public:
  Run(HostWork work, const std::vector<Job>& jobs, OutputSink& sink, const ExecutorOptions& options,
      SignalHook on_signal)
      : max_threads_(options.threads ? options.threads
                                     : std::max(1u, std::thread::hardware_concurrency())),
        ctx_(static_cast<int>(max_threads_)),
        work_(std::move(work)),
        jobs_(jobs),
        sink_(sink),
        stops_(jobs.size()),
        started_(jobs.size(), false),
        running_(jobs.size()),
        on_signal_(std::move(on_signal)),
        results_(jobs.size()),
        workers_(std::min(std::max<std::size_t>(options.fanout, 1), jobs.size())) {}

  std::vector<HostResult> operator()() {
    {
      sink_.on_error([this] { interrupt(); });  // output lost (a closed pipe): stop as Ctrl-C
      IoThreads threads(ctx_, max_threads_);
      SignalThread signals([this](int signal) { return signaled(signal); },
                           [&threads] { threads.tick(); });
      for (std::size_t w = workers_; w > 0; --w)
        asio::co_spawn(asio::make_strand(ctx_), worker(), [this](std::exception_ptr e) {
          if (!e) return;
          std::lock_guard lock(error_mutex_);
          if (!error_) error_ = e;
        });
      threads.run();
    }
    if (error_) std::rethrow_exception(error_);  // a sink failed: not a host's failure
    finish_unstarted();
    sink_.close();
    sink_.on_error({});
    return std::move(results_);
  }

 private:
  asio::awaitable<void> worker() {
    for (;;) {
      std::size_t i = next_++;
      if (i >= jobs_.size() || interrupted_) co_return;
      started_[i] = true;
      running_[i] = true;
      auto start = std::chrono::steady_clock::now();
      HostResult result;
      try {
        result = co_await work_(jobs_[i], stops_[i]);
      } catch (const std::exception& e) {  // a transport bug must not take the run down
        result.failure = Failure::local;
        result.error = e.what();
      }
      stops_[i].clear();
      result.duration = std::chrono::steady_clock::now() - start;
      results_[i] = result;
      sink_.finished(i, results_[i]);
      running_[i] = false;
    }
  }

  // From the signal thread: stop the run unless on_signal_ says it goes on.
  bool signaled(int signal) {
    if (on_signal_) {
      std::vector<std::size_t> running;
      for (std::size_t i = 0; i < running_.size(); ++i)
        if (running_[i]) running.push_back(i);
      if (!on_signal_(signal, running)) return false;
    }
    interrupt();
    return true;
  }

  // From the signal thread, or a sink's write that failed: stop what runs, start nothing more.
  void interrupt() {
    interrupted_ = true;
    for (auto& stop : stops_) stop.stop();
  }

  void finish_unstarted() {
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (started_[i]) continue;
      results_[i].failure = Failure::interrupted;
      results_[i].error = "interrupted before it started";
      sink_.finished(i, results_[i]);
    }
  }

  // ctx_ first: it is destroyed last, after everything that may hold I/O objects bound to it.
  unsigned max_threads_;
  asio::io_context ctx_;
  HostWork work_;
  const std::vector<Job>& jobs_;
  OutputSink& sink_;
  std::vector<StopSignal> stops_;
  std::vector<char> started_;               // char, not bool: workers write neighbouring elements
  std::vector<std::atomic<bool>> running_;  // read by the signal thread
  SignalHook on_signal_;
  std::vector<HostResult> results_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> interrupted_{false};
  std::size_t workers_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// A coroutine of its own, not a lambda's: its arguments live in its frame.
asio::awaitable<HostResult> open_and_run(Transport& transport, const HostTask& task, const Job& job,
                                         JobIo& io, StopSignal& stop) {
  Opened opened = co_await transport.open(job, stop);
  if (!opened.session) co_return opened.failure;
  co_return co_await task(*opened.session, job, io, stop);
}

std::vector<HostResult> run_all(HostWork work, const std::vector<Job>& jobs, OutputSink& sink,
                                const ExecutorOptions& options, const SignalHook& on_signal = {}) {
  std::signal(SIGPIPE, SIG_IGN);  // a command or a socket closing early is a result, not a crash
  return Run(std::move(work), jobs, sink, options, on_signal)();
}

}  // namespace

std::vector<HostResult> execute(Transport& transport, const std::vector<Job>& jobs,
                                OutputSink& sink, const ExecutorOptions& options,
                                const SignalHook& on_signal) {
  return run_all([&transport, &sink](const Job& job,
                                     StopSignal& stop) { return transport.run(job, sink, stop); },
                 jobs, sink, options, on_signal);
}

std::vector<HostResult> execute_tasks(Transport& transport, const std::vector<Job>& jobs,
                                      OutputSink& sink, const ExecutorOptions& options,
                                      const HostTask& task) {
  return run_all(
      [&transport, &sink, &task](const Job& job, StopSignal& stop) {
        return open_and_run(transport, task, job, sink, stop);
      },
      jobs, sink, options);
}

}  // namespace pdx
