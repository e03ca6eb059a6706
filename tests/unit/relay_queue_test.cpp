#include "distribute/relay_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace pdx {
namespace {

using namespace std::chrono_literals;

// What reader r took, joined, and how the stream ended for it.
struct Taken {
  std::string bytes;
  RelayQueue::End how = RelayQueue::End::broken;
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
  RelayQueue::End how;
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
  RelayQueue::End how;
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

}  // namespace
}  // namespace pdx
