#include "core/io_threads.h"

#include <gtest/gtest.h>

#include <atomic>
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

TEST(IoThreads, BusyWorkGetsMoreThreadsUpToTheMost) {
  asio::io_context ctx;
  std::atomic<int> done{0};
  for (int i = 0; i < 40; ++i) {
    asio::post(ctx, [&done] {
      spin(25ms);
      ++done;
    });
  }
  EXPECT_EQ(run_ticked(ctx, 2), 2u);
  EXPECT_EQ(done, 40);
}

TEST(IoThreads, AtMostNoneMeansOne) {
  asio::io_context ctx;
  asio::post(ctx, [] { spin(100ms); });
  EXPECT_EQ(run_ticked(ctx, 0), 1u);
}

}  // namespace
}  // namespace pdx
