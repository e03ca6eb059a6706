#include "distribute/wave_barrier.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <thread>

namespace asio = boost::asio;

namespace pdx {
namespace {

// `parties` coroutines on strands of their own, on two threads: each arrives after `delay_ms`
// times its number; what arrive() returned, by party.
struct Meeting {
  explicit Meeting(std::size_t parties)
      : barrier(parties,
                [this] {
                  ++completions;
                  resumed_before_complete = resumed;
                }),
        stops(parties),
        results(parties, -1) {}

  void arrive(std::size_t party, int delay_ms) {
    asio::co_spawn(
        asio::make_strand(ctx),
        [this, party, delay_ms]() -> asio::awaitable<void> {
          asio::steady_timer timer(co_await asio::this_coro::executor,
                                   std::chrono::milliseconds(delay_ms));
          co_await timer.async_wait(asio::use_awaitable);
          bool met = co_await barrier.arrive(party, stops[party]);
          ++resumed;
          results[party] = met;
        },
        asio::detached);
  }
  void run() {
    std::thread other([this] { ctx.run(); });
    ctx.run();
    other.join();
  }

  asio::io_context ctx;
  std::atomic<int> completions{0}, resumed{0};
  int resumed_before_complete = -1;
  WaveBarrier barrier;
  std::vector<StopSignal> stops;
  std::vector<int> results;
};

TEST(WaveBarrier, EveryPartyResumesOnceTheLastHasArrived) {
  Meeting m(4);
  for (std::size_t k = 0; k < 4; ++k) m.arrive(k, static_cast<int>(10 * k));
  m.run();
  EXPECT_EQ(m.completions, 1);
  EXPECT_EQ(m.resumed_before_complete, 0);
  EXPECT_EQ(m.results, (std::vector<int>{1, 1, 1, 1}));
}

TEST(WaveBarrier, APartyThatLeavesIsNotWaitedFor) {
  Meeting m(3);
  m.arrive(0, 0);
  m.arrive(2, 0);
  asio::steady_timer later(m.ctx, std::chrono::milliseconds(30));
  later.async_wait([&m](boost::system::error_code) {
    m.barrier.leave(1);
    m.barrier.leave(1);  // idempotent
  });
  m.run();
  EXPECT_EQ(m.completions, 1);
  EXPECT_EQ(m.results, (std::vector<int>{1, -1, 1}));
}

TEST(WaveBarrier, LeavingAfterArrivingChangesNothing) {
  Meeting m(2);
  m.arrive(0, 0);
  m.arrive(1, 40);
  asio::steady_timer between(m.ctx, std::chrono::milliseconds(20));
  between.async_wait([&m](boost::system::error_code) { m.barrier.leave(0); });
  m.run();
  EXPECT_EQ(m.completions, 1);
  EXPECT_EQ(m.results, (std::vector<int>{1, 1}));
}

TEST(WaveBarrier, WhenAllLeaveItStillCompletes) {
  Meeting m(2);
  m.barrier.leave(0);
  m.barrier.leave(1);
  EXPECT_EQ(m.completions, 1);
}

TEST(WaveBarrier, AStoppedWaiterResumesWithFalse) {
  Meeting m(3);
  m.arrive(0, 0);
  m.arrive(1, 0);
  asio::steady_timer later(m.ctx, std::chrono::milliseconds(30));
  later.async_wait([&m](boost::system::error_code) {
    m.stops[0].stop();  // Ctrl-C: from another thread in a real run
    m.stops[1].stop();
  });
  m.run();  // ends though party 2 never came
  EXPECT_EQ(m.completions, 0);
  EXPECT_EQ(m.results, (std::vector<int>{0, 0, -1}));
}

}  // namespace
}  // namespace pdx
