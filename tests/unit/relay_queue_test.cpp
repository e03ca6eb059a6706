#include "agent/relay_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace pdx {
namespace {

using namespace std::chrono_literals;

// What reader r took, joined, and how the stream ended for it.
struct Taken {
  std::string bytes;
  std::optional<RelayQueue::End> how;
};

Taken take_all(RelayQueue& queue, std::size_t r) {
  Taken got;
  while (auto chunk = queue.take(r, got.how)) got.bytes += *chunk;
  return got;
}

TEST(RelayQueue, EveryReaderTakesEveryChunkInOrder) {
  RelayQueue queue(2);
  Taken a, b;
  std::thread ta([&] { a = take_all(queue, 0); });
  std::thread tb([&] { b = take_all(queue, 1); });
  std::string sent;
  for (int i = 0; i < 1000; ++i) {
    std::string chunk(std::size_t(1 + i * 37 % 9000), char('a' + i % 26));
    sent += chunk;
    EXPECT_TRUE(queue.put(std::move(chunk)));
  }
  queue.end(RelayQueue::End::whole);
  ta.join();
  tb.join();
  EXPECT_EQ(a.bytes, sent);
  EXPECT_EQ(b.bytes, sent);
  EXPECT_EQ(a.how, RelayQueue::End::whole);
  EXPECT_EQ(b.how, RelayQueue::End::whole);
}

TEST(RelayQueue, AFullQueueWaitsForItsSlowestReader) {
  RelayQueue queue(2);
  ASSERT_TRUE(queue.put(std::string(RelayQueue::kMaxQueued, 'x')));
  std::atomic<bool> in{false};
  std::thread writer([&] {
    queue.put("y");
    in = true;
  });
  std::optional<RelayQueue::End> how;
  EXPECT_EQ(queue.take(0, how)->size(), RelayQueue::kMaxQueued);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(in) << "reader 1 has not taken the first chunk yet";
  EXPECT_EQ(queue.take(1, how)->size(), RelayQueue::kMaxQueued);
  writer.join();
  EXPECT_TRUE(in);
  EXPECT_EQ(*queue.take(1, how), "y");
}

TEST(RelayQueue, OneChunkOverTheLimitStillGoesIn) {
  RelayQueue queue(1);
  EXPECT_TRUE(queue.put(std::string(RelayQueue::kMaxQueued + 1, 'x')));
  std::optional<RelayQueue::End> how;
  EXPECT_EQ(queue.take(0, how)->size(), RelayQueue::kMaxQueued + 1);
}

TEST(RelayQueue, AReaderThatLeftIsNotWaitedFor) {
  RelayQueue queue(2);
  queue.leave(1);
  Taken a;
  std::thread ta([&] { a = take_all(queue, 0); });
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(queue.put(std::string(RelayQueue::kMaxQueued, 'x')));
  queue.end(RelayQueue::End::whole);
  ta.join();
  EXPECT_EQ(a.bytes.size(), 10 * RelayQueue::kMaxQueued);
}

TEST(RelayQueue, AReaderThatLeftTakesNothingMoreEvenWhileWaiting) {
  RelayQueue queue(2, 0);
  std::optional<RelayQueue::End> how;
  std::thread waiting([&] { EXPECT_EQ(queue.take(0, how), nullptr); });
  std::this_thread::sleep_for(20ms);
  queue.leave(0);  // from another thread: the one waiting in take returns
  waiting.join();
  EXPECT_EQ(how, RelayQueue::End::broken);
  EXPECT_TRUE(queue.put(std::string(100, 'x')));
  EXPECT_NE(queue.take(1, how), nullptr);  // reader 1 alone: the chunk is let go
  EXPECT_TRUE(queue.put(std::string(100, 'y')));
  EXPECT_EQ(queue.take(0, how), nullptr) << "never a chunk it may no longer hold";
  EXPECT_EQ(how, RelayQueue::End::broken);
}

TEST(RelayQueue, WithNoReaderLeftAChunkIsDropped) {
  RelayQueue queue(2);
  ASSERT_TRUE(queue.put(std::string(RelayQueue::kMaxQueued, 'x')));
  std::thread writer([&] { EXPECT_FALSE(queue.put("y")); });  // waits for room, then nobody
  std::this_thread::sleep_for(20ms);
  queue.leave(0);
  queue.leave(1);
  writer.join();
  EXPECT_FALSE(queue.put("z"));
}

TEST(RelayQueue, ABrokenStreamIsSaidAfterWhatCame) {
  RelayQueue queue(1);
  queue.put("part");
  queue.end(RelayQueue::End::broken);
  Taken a = take_all(queue, 0);
  EXPECT_EQ(a.bytes, "part");
  EXPECT_EQ(a.how, RelayQueue::End::broken);
}

TEST(RelayQueue, ATakeWithNothingNewWaitsBoundedAndSaysNoEnd) {
  RelayQueue queue(1);
  std::optional<RelayQueue::End> how = RelayQueue::End::whole;
  EXPECT_EQ(queue.take(0, how, 20ms), nullptr);
  EXPECT_FALSE(how);
  queue.put("a");
  EXPECT_EQ(*queue.take(0, how, 20ms), "a");
}

// The stream "0123456789..." in chunks of 1000 bytes, `count` of them, put with reader 0
// taking each at once.
std::string put_taken(RelayQueue& queue, int count) {
  std::string sent;
  std::optional<RelayQueue::End> how;
  for (int i = 0; i < count; ++i) {
    std::string chunk(1000, '\0');
    for (std::size_t b = 0; b < chunk.size(); ++b) chunk[b] = char('0' + (sent.size() + b) % 10);
    sent += chunk;
    EXPECT_TRUE(queue.put(std::move(chunk)));
    EXPECT_EQ(queue.take(0, how)->size(), 1000u);
  }
  return sent;
}

TEST(RelayQueue, ALateReaderStartsAtAnyOffsetOfTheHistory) {
  RelayQueue queue(1);
  std::string sent = put_taken(queue, 50);
  for (std::uint64_t at : {0ul, 1ul, 999ul, 1000ul, 1001ul, 25'123ul, 50'000ul}) {
    auto r = queue.join(at);
    ASSERT_TRUE(r) << at;
    if (at == 50'000) continue;  // nothing yet: it waits for the next chunk
    std::optional<RelayQueue::End> how;
    std::string got;
    while (got.size() < sent.size() - at) got += *queue.take(*r, how);
    EXPECT_EQ(got, sent.substr(at)) << at;
    queue.leave(*r);
  }
  EXPECT_FALSE(queue.join(50'001)) << "an offset beyond what was put";
  queue.end(RelayQueue::End::whole);
  auto late = queue.join(49'500);
  ASSERT_TRUE(late);
  Taken rest = take_all(queue, *late);
  EXPECT_EQ(rest.bytes, sent.substr(49'500));
  EXPECT_EQ(rest.how, RelayQueue::End::whole);
}

TEST(RelayQueue, TheHistoryIsBoundedAndAnOlderOffsetIsRefused) {
  RelayQueue queue(1);
  int count = int(RelayQueue::kHistory / 1000) + 100;
  put_taken(queue, count);
  std::uint64_t newest = std::uint64_t(count) * 1000;
  EXPECT_FALSE(queue.join(0)) << "let go: older than the history";
  EXPECT_FALSE(queue.join(newest - RelayQueue::kHistory - 2000));
  EXPECT_TRUE(queue.join(newest - RelayQueue::kHistory));
}

TEST(RelayQueue, ALateReaderGetsTheHistoryWholeOnceItHasWrappedAround) {
  RelayQueue queue(1);
  int count = int((RelayQueue::kHistory + RelayQueue::kMaxChunk) / 1000) * 2 + 7;
  std::string sent = put_taken(queue, count);
  std::uint64_t from = sent.size() - RelayQueue::kHistory;
  auto late = queue.join(from);
  ASSERT_TRUE(late);
  queue.end(RelayQueue::End::whole);
  Taken rest = take_all(queue, *late);
  EXPECT_TRUE(rest.bytes == sent.substr(from)) << "the history's bytes, in order";
  EXPECT_EQ(rest.how, RelayQueue::End::whole);
}

TEST(RelayQueue, AChunkEveryReaderTookHandsItsBufferBack) {
  RelayQueue queue(2, 0);
  EXPECT_TRUE(queue.spare().empty()) << "none yet";
  ASSERT_TRUE(queue.put(std::string(256 * 1024, 'x')));
  std::optional<RelayQueue::End> how;
  auto a = queue.take(0, how);
  EXPECT_TRUE(queue.spare().empty()) << "reader 1 has not taken it";
  auto b = queue.take(1, how);
  EXPECT_TRUE(queue.spare().empty()) << "still held by the readers";
  a.reset();
  b.reset();
  std::string buffer = queue.spare();
  EXPECT_EQ(buffer.size(), 256u * 1024) << "its size kept: filling it again zeroes nothing";
  EXPECT_TRUE(queue.spare().empty()) << "handed out once";
}

TEST(RelayQueue, ALateReaderHoldsTheQueueLikeAnyOther) {
  RelayQueue queue(1);
  put_taken(queue, 10);
  auto late = queue.join(0);
  ASSERT_TRUE(late);
  std::atomic<bool> in{false};
  std::thread writer([&] {
    queue.put(std::string(RelayQueue::kMaxQueued, 'x'));
    in = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(in) << "the late reader has 10000 bytes to take first";
  std::optional<RelayQueue::End> how;
  for (std::size_t got = 0; got < 10'000;) got += queue.take(*late, how)->size();
  writer.join();
  EXPECT_TRUE(in);
}

TEST(RelayQueue, WithoutAHistoryAChunkEveryReaderTookIsLetGo) {
  RelayQueue queue(1, 0);
  ASSERT_TRUE(queue.put("abc"));
  std::optional<RelayQueue::End> how;
  ASSERT_TRUE(queue.take(0, how));
  ASSERT_TRUE(queue.put("def"));
  EXPECT_FALSE(queue.join(0));  // "abc" is gone
  EXPECT_TRUE(queue.join(3));
}

TEST(RelayQueue, APutWaitsForRoomAtMostItsStallAndKeepsItsChunk) {
  RelayQueue queue(1);
  std::string full(RelayQueue::kMaxQueued, 'f');
  EXPECT_EQ(queue.put(full, 10ms), RelayQueue::Put::in);
  EXPECT_TRUE(full.empty()) << "moved in";
  std::string more = "more";
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(queue.put(more, 50ms), RelayQueue::Put::stalled) << "the reader took nothing";
  EXPECT_GE(std::chrono::steady_clock::now() - started, 50ms);
  EXPECT_EQ(more, "more") << "kept for the next try";
  std::optional<RelayQueue::End> how;
  EXPECT_TRUE(queue.take(0, how, 0ms));
  EXPECT_EQ(queue.put(more, 10ms), RelayQueue::Put::in);
  queue.leave(0);
  std::string late = "late";
  EXPECT_EQ(queue.put(late, 10ms), RelayQueue::Put::nobody);
}

TEST(RelayQueue, OnReadyWakesOnceAtTheNextChunkOrTheEndOrAtOnce) {
  RelayQueue queue(1);
  int woken = 0;
  queue.on_ready(0, [&] { ++woken; });
  EXPECT_EQ(woken, 0) << "nothing to take yet";
  EXPECT_TRUE(queue.put("a"));
  EXPECT_EQ(woken, 1);
  EXPECT_TRUE(queue.put("b"));
  EXPECT_EQ(woken, 1) << "once";
  queue.on_ready(0, [&] { ++woken; });
  EXPECT_EQ(woken, 2) << "a chunk is there: at once";
  std::optional<RelayQueue::End> how;
  while (queue.take(0, how, 0ms)) {
  }
  queue.on_ready(0, [&] { ++woken; });
  queue.end(RelayQueue::End::whole);
  EXPECT_EQ(woken, 3) << "the end";
}

}  // namespace
}  // namespace pdx
