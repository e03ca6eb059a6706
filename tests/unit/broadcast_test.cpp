#include "transport/broadcast.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "tests/unit/pipe_feeder.h"

namespace pdx {
namespace {

using State = Broadcast::Piece::State;
using namespace std::chrono_literals;

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
}

// Reads reader `i` to its end, waiting through on_ready; takes at most `bite` bytes at a time.
std::string drain(Broadcast& b, std::size_t i, std::size_t bite = 1 << 30) {
  std::string got;
  for (;;) {
    auto piece = b.next(i);
    if (piece.state == State::end) break;
    if (piece.state == State::failed) return "failed: " + piece.error;
    if (piece.state == State::wait) {
      std::promise<void> ready;
      b.on_ready(i, [&ready] { ready.set_value(); });
      ready.get_future().wait();
      continue;
    }
    auto n = std::min(bite, piece.bytes.size());
    got.append(piece.bytes.substr(0, n));
    b.consume(i, n);
  }
  b.finish(i);
  return got;
}

Broadcast::Options small(bool spool = false) {
  Broadcast::Options o;
  o.chunk = 1000;
  o.window = 8000;
  o.spool = spool;
  return o;
}

TEST(Broadcast, EveryReaderGetsEveryByteAtItsOwnPace) {
  std::string data = pattern(300000);
  test::PipeFeeder feeder(data);
  auto b = *Broadcast::start(feeder.fd(), 3, small());
  std::vector<std::future<std::string>> got;
  for (std::size_t i = 0; i < 3; ++i)
    got.push_back(std::async(std::launch::async, [&, i] { return drain(*b, i, 100 + 900 * i); }));
  for (auto& g : got) EXPECT_EQ(g.get(), data);
}

TEST(Broadcast, OnConsumeCountsWhatEachReaderTook) {
  std::string data = pattern(50000);
  test::PipeFeeder feeder(data);
  Broadcast::Options o = small();
  std::atomic<std::uint64_t> taken[2] = {0, 0};
  o.on_consume = [&taken](std::size_t reader, std::size_t n) { taken[reader] += n; };
  auto b = *Broadcast::start(feeder.fd(), 2, o);
  auto first = std::async(std::launch::async, [&] { return drain(*b, 0, 333); });
  EXPECT_EQ(drain(*b, 1, 4000), data);
  EXPECT_EQ(first.get(), data);
  EXPECT_EQ(taken[0], data.size());
  EXPECT_EQ(taken[1], data.size());
}

TEST(Broadcast, EmptyInputEndsAtOnce) {
  test::PipeFeeder feeder("");
  auto b = *Broadcast::start(feeder.fd(), 2, small());
  EXPECT_EQ(drain(*b, 0), "");
  EXPECT_EQ(drain(*b, 1), "");
}

TEST(Broadcast, AFinishedReaderNoLongerHoldsTheWindow) {
  std::string data = pattern(100000);
  test::PipeFeeder feeder(data);
  auto b = *Broadcast::start(feeder.fd(), 2, small());
  b->finish(1);  // its host failed before reading anything
  EXPECT_EQ(drain(*b, 0), data);
}

TEST(Broadcast, AStalledReaderIsFailedAndTheOthersGoOn) {
  std::string data = pattern(100000);
  test::PipeFeeder feeder(data);
  auto options = small();
  options.stall = 200ms;
  auto b = *Broadcast::start(feeder.fd(), 2, options);
  std::promise<std::string> stalled;
  b->on_stall(1, [&stalled](const std::string& why) { stalled.set_value(why); });
  EXPECT_EQ(drain(*b, 0), data);  // reader 1 never reads
  auto why = stalled.get_future();
  ASSERT_EQ(why.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(why.get(), "took no input for 0.2s while the other hosts waited");
  EXPECT_EQ(b->next(1).state, State::failed);
}

TEST(Broadcast, WithASpoolALateReaderStartsFromTheBeginning) {
  std::string data = pattern(200000);
  test::PipeFeeder feeder(data);
  auto b = *Broadcast::start(feeder.fd(), 2, small(/*spool=*/true));
  EXPECT_EQ(drain(*b, 0), data);  // reader 1 has not started: the window did not wait for it
  EXPECT_EQ(drain(*b, 1, 333), data);
}

TEST(Broadcast, ReadersWaitForInputThatComesSlowly) {
  std::string data = pattern(200000);
  test::PipeFeeder feeder(data, 1ms);
  auto b = *Broadcast::start(feeder.fd(), 2, small());
  auto other = std::async(std::launch::async, [&] { return drain(*b, 1); });
  EXPECT_EQ(drain(*b, 0), data);
  EXPECT_EQ(other.get(), data);
}

TEST(Broadcast, StopsReadingWhenDroppedMidInput) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);  // a writer that never writes nor closes
  auto start = std::chrono::steady_clock::now();
  { auto b = *Broadcast::start(fds[0], 1, small()); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace pdx
