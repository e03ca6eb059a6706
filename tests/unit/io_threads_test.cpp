#include "core/io_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <thread>

namespace pdx {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// Calls threads.tick() every 20 ms until stopped.
class Ticker {
 public:
  explicit Ticker(IoThreads& threads)
      : thread_([this, &threads] {
          while (!stop_) {
            std::this_thread::sleep_for(20ms);
            threads.tick();
          }
        }) {}
  ~Ticker() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Keeps the thread busy for `time`.
void spin(std::chrono::milliseconds time) {
  auto until = std::chrono::steady_clock::now() + time;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Runs `ctx` on IoThreads of at most `max`, ticked every 20 ms; how many threads ran it.
unsigned run_ticked(asio::io_context& ctx, unsigned max) {
  IoThreads threads(ctx, max);
  Ticker ticker(threads);
  threads.run();
  return threads.count();
}

TEST(IoThreads, WaitingWorkStaysOnTheCallingThread) {
  asio::io_context ctx;
  asio::steady_timer timer(ctx);
  int waits = 0;
  std::function<void(boost::system::error_code)> again = [&](boost::system::error_code) {
    if (++waits == 10) return;
    timer.expires_after(15ms);
    timer.async_wait(again);
  };
  again({});
  EXPECT_EQ(run_ticked(ctx, 4), 1u);
  EXPECT_EQ(waits, 10);
}

TEST(IoThreads, WhatTheCallingThreadDidBeforeIsNotCounted) {
  spin(200ms);  // as pdx reading a large known_hosts before the run
  asio::io_context ctx;
  asio::steady_timer timer(ctx);
  timer.expires_after(100ms);
  timer.async_wait([](boost::system::error_code) {});
  EXPECT_EQ(run_ticked(ctx, 4), 1u);
}

// Clocks the test moves: each tick() a step of 50 ms later, in which every thread running the
// io_context used `busy` of it in CPU time.
class SteppedClocks {
 public:
  explicit SteppedClocks(double busy) : busy_(busy) {}
  IoClocks clocks() {
    return {[this] { return std::chrono::steady_clock::time_point(steps_.load() * kStep); },
            [this](clockid_t) {
              return busy_ * std::chrono::duration<double>(steps_.load() * kStep).count();
            }};
  }
  void step() { ++steps_; }

 private:
  static constexpr std::chrono::milliseconds kStep{50};
  double busy_;
  std::atomic<int> steps_{0};
};

// The threads that ran `ctx` (kept busy until the end) after `ticks` ticks of `clocks`, with at
// most `max`.
unsigned after_ticks(SteppedClocks& clocks, unsigned max, int ticks) {
  asio::io_context ctx;
  auto work = asio::make_work_guard(ctx);
  IoThreads threads(ctx, max, clocks.clocks());
  std::thread runner([&] { threads.run(); });
  while (threads.count() == 0) std::this_thread::yield();  // run() has begun
  for (int i = 0; i < ticks; ++i) {
    clocks.step();
    threads.tick();
  }
  unsigned count = threads.count();
  work.reset();
  runner.join();
  return count;
}

TEST(IoThreads, BusyWorkGetsAThreadATickUpToTheMost) {
  SteppedClocks busy(1.0);
  EXPECT_EQ(after_ticks(busy, 3, 1), 2u);
  SteppedClocks busy_again(1.0);
  EXPECT_EQ(after_ticks(busy_again, 3, 10), 3u);
}

TEST(IoThreads, ThreadsBusyLessThanHalfTheTimeGetNoMore) {
  SteppedClocks idle(0.0);
  EXPECT_EQ(after_ticks(idle, 4, 10), 1u);
  SteppedClocks under_half(0.4);
  EXPECT_EQ(after_ticks(under_half, 4, 10), 1u);
  SteppedClocks over_half(0.6);
  EXPECT_EQ(after_ticks(over_half, 4, 10), 4u);
}

// The same with the real clocks, and a thread spinning: at least the calling thread ran it, and
// never more than the most (how many more depends on the CPU the machine gives the test).
TEST(IoThreads, BusyWorkWithRealClocksStaysWithinTheMost) {
  asio::io_context ctx;
  std::atomic<int> done{0};
  for (int i = 0; i < 8; ++i) {
    asio::post(ctx, [&done] {
      spin(25ms);
      ++done;
    });
  }
  unsigned count = run_ticked(ctx, 2);
  EXPECT_GE(count, 1u);
  EXPECT_LE(count, 2u);
  EXPECT_EQ(done, 8);
}

TEST(IoThreads, AtMostNoneMeansOne) {
  asio::io_context ctx;
  asio::post(ctx, [] { spin(100ms); });
  EXPECT_EQ(run_ticked(ctx, 0), 1u);
}

}  // namespace
}  // namespace pdx
