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

TEST(IoThreads, WaitingWorkStaysOnTheCallingThread) {
  asio::io_context ctx;
  IoThreads threads(ctx, 4);
  asio::steady_timer timer(ctx);
  int waits = 0;
  std::function<void(boost::system::error_code)> again = [&](boost::system::error_code) {
    if (++waits == 10) return;
    timer.expires_after(15ms);
    timer.async_wait(again);
  };
  again({});
  Ticker ticker(threads);
  threads.run();
  EXPECT_EQ(waits, 10);
  EXPECT_EQ(threads.count(), 1u);
}

TEST(IoThreads, BusyWorkGetsMoreThreadsUpToTheMost) {
  asio::io_context ctx;
  IoThreads threads(ctx, 2);
  std::atomic<int> done{0};
  for (int i = 0; i < 40; ++i) {
    asio::post(ctx, [&done] {
      auto until = std::chrono::steady_clock::now() + 25ms;
      while (std::chrono::steady_clock::now() < until) {
      }
      ++done;
    });
  }
  Ticker ticker(threads);
  threads.run();
  EXPECT_EQ(done, 40);
  EXPECT_EQ(threads.count(), 2u);
}

TEST(IoThreads, AtMostNoneMeansOne) {
  asio::io_context ctx;
  IoThreads threads(ctx, 0);
  asio::post(ctx, [] {
    auto until = std::chrono::steady_clock::now() + 100ms;
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  Ticker ticker(threads);
  threads.run();
  EXPECT_EQ(threads.count(), 1u);
}

}  // namespace
}  // namespace pdx
