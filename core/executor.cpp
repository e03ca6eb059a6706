#include "core/executor.h"

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <thread>

namespace asio = boost::asio;

namespace pdx {

namespace {

class Run {
 public:
  Run(Transport& transport, const std::vector<Job>& jobs, OutputSink& sink,
      const ExecutorOptions& options)
      : transport_(transport),
        jobs_(jobs),
        sink_(sink),
        stops_(jobs.size()),
        started_(jobs.size(), false),
        results_(jobs.size()),
        ctx_(threads(options)),
        signals_(asio::make_strand(ctx_), SIGINT, SIGTERM),
        workers_(std::min(options.fanout ? options.fanout : 1, jobs.size())),
        thread_count_(threads(options)) {}

  std::vector<HostResult> operator()() {
    watch_signals();
    for (std::size_t w = 0; w < workers_; ++w)
      asio::co_spawn(asio::make_strand(ctx_), worker(), [this](std::exception_ptr) {
        if (--workers_ == 0) asio::post(signals_.get_executor(), [this] { signals_.cancel(); });
      });
    if (workers_ == 0) signals_.cancel();
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < thread_count_; ++t) threads.emplace_back([this] { ctx_.run(); });
    ctx_.run();
    for (auto& t : threads) t.join();
    finish_unstarted();
    sink_.close();
    return std::move(results_);
  }

 private:
  static unsigned threads(const ExecutorOptions& o) {
    return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  }

  asio::awaitable<void> worker() {
    for (;;) {
      std::size_t i = next_++;
      if (i >= jobs_.size() || interrupted_) co_return;
      started_[i] = true;
      auto start = std::chrono::steady_clock::now();
      HostResult result;
      try {
        result = co_await transport_.run(jobs_[i], sink_, stops_[i]);
      } catch (const std::exception& e) {  // a transport bug must not take the run down
        result.failure = Failure::local;
        result.error = e.what();
      }
      result.duration = std::chrono::steady_clock::now() - start;
      results_[i] = result;
      sink_.finished(i, results_[i]);
    }
  }

  // First SIGINT/SIGTERM: stop what runs, start nothing more. Second: leave at once.
  void watch_signals() {
    signals_.async_wait([this](boost::system::error_code ec, int) {
      if (ec) return;
      if (interrupted_.exchange(true)) std::_Exit(130);
      for (auto& stop : stops_) stop.stop();
      watch_signals();
    });
  }

  void finish_unstarted() {
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (started_[i]) continue;
      results_[i].failure = Failure::interrupted;
      results_[i].error = "interrupted before it started";
      sink_.finished(i, results_[i]);
    }
  }

  Transport& transport_;
  const std::vector<Job>& jobs_;
  OutputSink& sink_;
  std::vector<StopSignal> stops_;
  std::vector<char> started_;  // char, not bool: workers write neighbouring elements
  std::vector<HostResult> results_;
  asio::io_context ctx_;
  asio::signal_set signals_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> interrupted_{false};
  std::atomic<std::size_t> workers_;
  unsigned thread_count_;
};

}  // namespace

std::vector<HostResult> execute(Transport& transport, const std::vector<Job>& jobs,
                                OutputSink& sink, const ExecutorOptions& options) {
  std::signal(SIGPIPE, SIG_IGN);  // a command or a socket closing early is a result, not a crash
  return Run(transport, jobs, sink, options)();
}

}  // namespace pdx
