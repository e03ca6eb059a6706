#include "agent/relay_link.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "tests/unit/tcp_proxy.h"

namespace pdx {
namespace {

using namespace std::chrono_literals;
using Clock = RelayLink::Clock;

std::string secret(char c) {
  return std::string(kRelaySecretSize, c);
}

// What the listening end got: every chunk joined, or the error that ended it.
struct Received {
  std::string bytes;
  std::string error;
};

// What `link` received, nothing for `idle` an error, passing it on at the end.
Received receive_on(Result<RelayLink> link, std::chrono::milliseconds idle = 2s) {
  if (!link) return {"", link.error()};
  Received got;
  for (;;) {
    auto chunk = link->receive(idle);
    if (!chunk) return {got.bytes, chunk.error()};
    if (!*chunk) {
      link->passed_on();
      return got;
    }
    got.bytes += **chunk;
  }
}

Received receive_all(int listener, const std::string& key, Clock::time_point deadline,
                     std::uint64_t offset = 0) {
  return receive_on(RelayLink::accept(listener, key, deadline, offset));
}

// A listener on 127.0.0.1 under secret('k'), and a thread that takes one link on it within
// `wait` and receives all of it (receive_all), telling the peer it holds `offset`; joined by
// received(), or when it goes (on an ASSERT too).
class Downstream {
 public:
  explicit Downstream(std::chrono::milliseconds wait = 5s, std::uint64_t offset = 0)
      : listener_(*relay_listen("127.0.0.1", 0, 0)), thread_([this, wait, offset] {
          got_ = receive_all(listener_.fd.get(), secret('k'), Clock::now() + wait, offset);
        }) {}
  std::uint16_t port() const { return listener_.port; }
  /// A link to it, under secret(key).
  Result<RelayLink> connect(char key = 'k') const {
    return RelayLink::connect("127.0.0.1", port(), secret(key), Clock::now() + 5s);
  }
  /// What it received, once it ended.
  const Received& received() {
    if (thread_.joinable()) thread_.join();
    return got_;
  }

 private:
  RelayListener listener_;
  Received got_;
  std::jthread thread_;  // last: it starts once the others are there, and goes first
};

// What the connector sends before any record of the stream: its hello and its proof.
constexpr std::size_t kHello = 5 + 1 + 16;  // the magic, the flow, the nonce
constexpr std::size_t kHandshake = kHello + kRecordHeader + kRecordTag;

TEST(RelayLink, ChunksArriveWholeAndInOrder) {
  Downstream downstream;
  auto link = downstream.connect();
  ASSERT_TRUE(link) << link.error();
  std::string big(kRelayMaxChunk, 'x');
  EXPECT_TRUE(link->send("one "));
  EXPECT_TRUE(link->send(big));
  EXPECT_TRUE(link->send(" two"));
  EXPECT_TRUE(link->finish());
  const Received& got = downstream.received();
  EXPECT_EQ(got.error, "");
  EXPECT_EQ(got.bytes, "one " + big + " two");
}

TEST(RelayLink, ALinkClosedBeforeItsEndIsBrokenForThePeer) {
  Downstream downstream;
  auto link = downstream.connect();
  ASSERT_TRUE(link) << link.error();
  EXPECT_TRUE(link->send("some"));
  link->close();
  const Received& got = downstream.received();
  EXPECT_EQ(got.error, "the relay link closed");
  EXPECT_EQ(got.bytes, "some");
}

TEST(RelayLink, APeerWithoutTheSecretIsRefusedAndTheListenerWaitsOn) {
  Downstream downstream;
  auto wrong = downstream.connect('w');
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error(), "127.0.0.1 port " + std::to_string(downstream.port()) +
                               ": the peer does not hold this run's secret");
  auto right = downstream.connect();
  ASSERT_TRUE(right) << right.error();
  EXPECT_TRUE(right->send("data"));
  EXPECT_TRUE(right->finish());
  EXPECT_EQ(downstream.received().bytes, "data");
}

TEST(RelayLink, NobodyConnectingEndsAtTheDeadline) {
  Downstream downstream(200ms);
  EXPECT_EQ(downstream.received().error, "the previous host never connected");
}

// A plain TCP connection to the listener on `port`, that sends nothing unless told; its
// connect, sends and receives give up after 3 s.
Fd plain_connection(std::uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  timeval limit{3, 0};
  for (int option : {SO_SNDTIMEO, SO_RCVTIMEO})
    ::setsockopt(fd.get(), SOL_SOCKET, option, &limit, sizeof limit);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  return fd;
}

// Whether the listener closed `fd` (within a second).
bool closed(const Fd& fd) {
  pollfd p{fd.get(), POLLIN, 0};
  char byte;
  return ::poll(&p, 1, 1000) == 1 && ::recv(fd.get(), &byte, 1, MSG_DONTWAIT) <= 0;
}

TEST(RelayLink, IdleConnectionsHoldUpNoPeerButThemselves) {
  Downstream downstream(10s);
  std::vector<Fd> idle;
  for (int i = 0; i < 10; ++i) idle.push_back(plain_connection(downstream.port()));
  std::this_thread::sleep_for(100ms);  // taken, each a handshake waiting for its hello
  auto start = Clock::now();
  auto right = downstream.connect();
  ASSERT_TRUE(right) << right.error();
  EXPECT_LT(Clock::now() - start, 2s) << "not one handshake after another";
  EXPECT_TRUE(right->send("data"));
  EXPECT_TRUE(right->finish());
  const Received& got = downstream.received();
  EXPECT_EQ(got.error, "");
  EXPECT_EQ(got.bytes, "data");
  for (const auto& fd : idle) EXPECT_TRUE(closed(fd)) << "the others are closed once one links";
}

TEST(RelayLink, PastSixteenPendingHandshakesTheOldestIsDropped) {
  Downstream downstream(10s);
  std::vector<Fd> idle;
  for (int i = 0; i < 17; ++i) idle.push_back(plain_connection(downstream.port()));
  EXPECT_TRUE(closed(idle[0])) << "while the listener waits on";
  auto right = downstream.connect();
  ASSERT_TRUE(right) << right.error();
  EXPECT_TRUE(right->finish());
  EXPECT_EQ(downstream.received().error, "");
}

TEST(RelayLink, AWrongProofIsClosedAndTheListenerWaitsOn) {
  Downstream downstream(10s);
  Fd forger = plain_connection(downstream.port());
  std::string hello = "PDXR5l" + std::string(16, 'n');
  ASSERT_EQ(::send(forger.get(), hello.data(), hello.size(), 0), ssize_t(hello.size()));
  char reply[kHello + kRecordHeader + kRecordTag];
  ASSERT_EQ(::recv(forger.get(), reply, sizeof reply, MSG_WAITALL), ssize_t(sizeof reply));
  std::string proof = std::string("n\0\0\0\0", kRecordHeader) + std::string(kRecordTag, 'p');
  ASSERT_EQ(::send(forger.get(), proof.data(), proof.size(), 0), ssize_t(proof.size()));
  EXPECT_TRUE(closed(forger));
  auto right = downstream.connect();
  ASSERT_TRUE(right) << right.error();
  EXPECT_TRUE(right->send("data"));
  EXPECT_TRUE(right->finish());
  EXPECT_EQ(downstream.received().bytes, "data");
}

// The link through a proxy that does `change` to the connector's stream; what the listener got.
Received through_proxy(Proxy::Change change,
                       const std::vector<std::string>& chunks = {std::string(10000, 'a')}) {
  Downstream downstream;
  {
    Proxy proxy(downstream.port(), std::move(change));
    auto link = RelayLink::connect("127.0.0.1", proxy.port(), secret('k'), Clock::now() + 5s);
    if (link) {
      for (const auto& chunk : chunks) (void)link->send(chunk);
      (void)link->finish();
    }
  }
  return downstream.received();
}

TEST(RelayLink, AChangedByteFailsTheChunk) {
  auto got = through_proxy([](std::size_t offset, std::string& bytes) {
    std::size_t at = kHandshake + kRecordHeader + 100;  // inside the first chunk's bytes
    if (at >= offset && at < offset + bytes.size()) bytes[at - offset] ^= 1;
  });
  EXPECT_EQ(got.error, "a relay chunk failed its check");
  EXPECT_EQ(got.bytes, "");
}

TEST(RelayLink, ACutStreamIsAnErrorNotAShorterStream) {
  auto got = through_proxy([](std::size_t offset, std::string& bytes) {
    if (offset + bytes.size() > kHandshake + 5000)
      bytes.resize(kHandshake + 5000 - std::min(offset, kHandshake + 5000));
  });
  EXPECT_EQ(got.error, "the relay link closed");
}

TEST(RelayLink, ALengthOverTheLimitIsRefusedBeforeReading) {
  auto got = through_proxy([](std::size_t offset, std::string& bytes) {
    constexpr std::size_t kLength = kHandshake + 1;  // the first record's length
    if (offset <= kLength && kLength < offset + bytes.size()) bytes[kLength - offset] = '\xff';
  });
  EXPECT_EQ(got.error, "a relay chunk over its limit");
}

TEST(RelayLink, AReplayedChunkFailsItsCheck) {
  constexpr std::size_t kFirstEnd = kHandshake + kRecordHeader + 10000 + kRecordTag;
  std::string stream;  // what the connector sent so far
  auto got = through_proxy(
      [&](std::size_t offset, std::string& bytes) {
        stream += bytes;
        if (offset < kFirstEnd && kFirstEnd <= offset + bytes.size())  // the first chunk again
          bytes.insert(kFirstEnd - offset, stream.substr(kHandshake, kFirstEnd - kHandshake));
      },
      {std::string(10000, 'a'), std::string(10000, 'b')});
  EXPECT_EQ(got.error, "a relay chunk failed its check");
  EXPECT_EQ(got.bytes, std::string(10000, 'a'));
}

TEST(RelayLink, TheStreamCrossesTheLinkEncrypted) {
  std::string marker = "a known plaintext marker, plain to see on the wire ";
  std::string plaintext;
  while (plaintext.size() < 100000) plaintext += marker;
  std::string wire;  // every byte the connector sent
  auto got = through_proxy([&](std::size_t, std::string& bytes) { wire += bytes; }, {plaintext});
  EXPECT_EQ(got.error, "");
  EXPECT_EQ(got.bytes, plaintext);
  EXPECT_GT(wire.size(), plaintext.size());
  EXPECT_EQ(wire.find("a known plaintext"), std::string::npos);
}

TEST(RelayLink, TheListenerSaysTheOffsetItHolds) {
  Downstream downstream(5s, 0x1234'5678'9abcULL);
  auto link = downstream.connect();
  ASSERT_TRUE(link) << link.error();
  EXPECT_EQ(link->offset(), 0x1234'5678'9abcULL);
  EXPECT_TRUE(link->finish());
  EXPECT_EQ(downstream.received().error, "");
}

TEST(RelayLink, AChangedOffsetIsRefused) {
  Downstream downstream(2s, 7);
  // After the listener's magic, nonce and proof, and the offset record's header.
  constexpr std::size_t kOffsetAt = kHello + kRecordHeader + kRecordTag + kRecordHeader;
  Proxy proxy(
      downstream.port(), [](std::size_t, std::string&) {},
      [](std::size_t offset, std::string& bytes) {
        if (kOffsetAt + 7 >= offset && kOffsetAt + 7 < offset + bytes.size())
          bytes[kOffsetAt + 7 - offset] ^= 1;  // 7 becomes 6
      });
  auto link = RelayLink::connect("127.0.0.1", proxy.port(), secret('k'), Clock::now() + 5s);
  ASSERT_FALSE(link);
  EXPECT_EQ(link.error(), "127.0.0.1 port " + std::to_string(proxy.port()) +
                              ": the offset the peer holds failed its check");
}

TEST(RelayLink, KeepalivesKeepAnIdleLinkUpAndCarryNothing) {
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener);
  std::string got, error;
  std::thread downstream([&] {
    auto link = RelayLink::accept(listener->fd.get(), secret('k'), Clock::now() + 5s, 0);
    if (!link) return;
    for (;;) {
      auto chunk = link->receive(300ms);  // shorter than the whole wait below
      if (!chunk) error = chunk.error();
      if (chunk && !*chunk) link->passed_on();
      if (!chunk || !*chunk) return;
      got += **chunk;
    }
  });
  auto link = RelayLink::connect("127.0.0.1", listener->port, secret('k'), Clock::now() + 5s);
  ASSERT_TRUE(link) << link.error();
  EXPECT_TRUE(link->send("a"));
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(link->keepalive());
  }
  EXPECT_TRUE(link->send("b"));
  EXPECT_TRUE(link->finish());
  downstream.join();
  EXPECT_EQ(error, "");
  EXPECT_EQ(got, "ab");
}

TEST(RelayLink, ASenderThatGivesUpSaysSo) {
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener);
  std::string error;
  bool gave_up = false;
  std::thread downstream([&] {
    auto link = RelayLink::accept(listener->fd.get(), secret('k'), Clock::now() + 5s, 0);
    if (!link) return;
    auto first = link->receive(2s);
    EXPECT_TRUE(first && *first && **first == "a");
    EXPECT_FALSE(link->gave_up());
    auto second = link->receive(2s);
    if (!second) error = second.error();
    gave_up = link->gave_up();
  });
  auto link = RelayLink::connect("127.0.0.1", listener->port, secret('k'), Clock::now() + 5s);
  ASSERT_TRUE(link) << link.error();
  EXPECT_TRUE(link->send("a"));
  link->give_up();
  downstream.join();
  EXPECT_EQ(error, "the host before lost its own upstream");
  EXPECT_TRUE(gave_up);
}

TEST(RelayLink, HungUpIsABrokenLinkNotAFinishedOne) {
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener);
  std::optional<Result<RelayLink>> accepted;
  std::thread accepting([&] {
    accepted.emplace(RelayLink::accept(listener->fd.get(), secret('k'), Clock::now() + 5s, 0));
  });
  auto link = RelayLink::connect("127.0.0.1", listener->port, secret('k'), Clock::now() + 5s);
  accepting.join();
  ASSERT_TRUE(link && *accepted);
  RelayLink& downstream = **accepted;
  std::thread finishing([&] { EXPECT_TRUE(link->finish()); });
  std::this_thread::sleep_for(100ms);  // the end sent, the sender's side shut
  EXPECT_FALSE(downstream.hung_up()) << "a finished link is not a broken one";
  auto end = downstream.receive(1s);
  ASSERT_TRUE(end && !*end);
  downstream.passed_on();
  downstream.close();
  finishing.join();

  std::thread second([&] {
    accepted.emplace(RelayLink::accept(listener->fd.get(), secret('k'), Clock::now() + 5s, 0));
  });
  auto reset = RelayLink::connect("127.0.0.1", listener->port, secret('k'), Clock::now() + 5s);
  second.join();
  ASSERT_TRUE(reset && *accepted);
  (*accepted)->heartbeat();
  std::this_thread::sleep_for(50ms);
  reset->close();  // with the heartbeat unread: a reset
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE((*accepted)->hung_up());
}

TEST(RelayLink, AFinishIsAnErrorWhenThePeerTookTheEndButLeftWithoutPassingItOn) {
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener);
  std::thread downstream([&] {
    auto link = RelayLink::accept(listener->fd.get(), secret('k'), Clock::now() + 5s, 0);
    ASSERT_TRUE(link);
    auto end = link->receive(2s);
    EXPECT_TRUE(end && !*end);  // then it dies: its link closes, with nothing said
  });
  auto link = RelayLink::connect("127.0.0.1", listener->port, secret('k'), Clock::now() + 5s);
  ASSERT_TRUE(link) << link.error();
  auto finished = link->finish();
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error(), "the next host left before it had passed the stream on");
  downstream.join();
}

TEST(RelayLink, AFinishIsAnErrorWhenThePeerLeavesWithoutTakingTheEnd) {
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener);
  std::thread downstream([&] {
    auto link = RelayLink::accept(listener->fd.get(), secret('k'), Clock::now() + 5s, 0);
    std::this_thread::sleep_for(100ms);  // the chunk is there, unread, when it closes
  });
  auto link = RelayLink::connect("127.0.0.1", listener->port, secret('k'), Clock::now() + 5s);
  ASSERT_TRUE(link) << link.error();
  EXPECT_TRUE(link->send(std::string(1000, 'x')));
  EXPECT_FALSE(link->finish());
  downstream.join();
}

// Keepalives a Sender's link says from a thread of its own (keepalive_if_quiet), from the
// link-up until its finish() has returned.
struct Beats {
  std::optional<std::chrono::microseconds> every;  // none: no keepalives; 0: as fast as it can
  std::chrono::milliseconds quiet{};
  std::chrono::microseconds gap{};    // the stream held up this long before each chunk
  std::chrono::milliseconds pause{};  // and this long before its last
};

// A listener on 127.0.0.1 under secret('k') that sends `chunks` to the one that links to it
// (LinkFlow::to_connector, pull's), then ends the stream; what its finish() said, once joined.
class Sender {
 public:
  explicit Sender(std::vector<std::string> chunks, Beats beats = {})
      : listener_(*relay_listen("127.0.0.1", 0, 0)),
        thread_([this, chunks = std::move(chunks), beats] {
          auto link = RelayLink::accept(listener_.fd.get(), secret('k'), Clock::now() + 5s, 0,
                                        LinkFlow::to_connector);
          if (!link) return void(error_ = link.error());
          std::jthread beat;
          if (beats.every)
            beat = std::jthread([&](std::stop_token stop) {
              while (!stop.stop_requested()) {
                link->keepalive_if_quiet(beats.quiet);
                if (beats.every->count())
                  std::this_thread::sleep_for(*beats.every);
                else
                  std::this_thread::yield();
              }
            });
          for (std::size_t i = 0; i < chunks.size(); ++i) {
            std::this_thread::sleep_for(i + 1 == chunks.size() ? beats.pause : beats.gap);
            if (auto sent = link->send(chunks[i]); !sent) return void(error_ = sent.error());
          }
          if (auto finished = link->finish(); !finished) error_ = finished.error();
        }) {}
  std::uint16_t port() const { return listener_.port; }
  const std::string& error() {
    if (thread_.joinable()) thread_.join();
    return error_;
  }

 private:
  RelayListener listener_;
  std::string error_;
  std::jthread thread_;
};

// What the connector of a to_connector link to `port` received, passing it on at the end.
Received receive_from(std::uint16_t port, std::chrono::milliseconds idle = 2s) {
  return receive_on(
      RelayLink::connect("127.0.0.1", port, secret('k'), Clock::now() + 5s, LinkFlow::to_connector),
      idle);
}

// The to_connector link through a proxy that does `change` to the listener's stream: what the
// connector got, and what the listener's finish() said.
std::pair<Received, std::string> back_through_proxy(Proxy::Change change,
                                                    const std::vector<std::string>& chunks = {
                                                        std::string(10000, 'a')}) {
  Sender sender(chunks);
  Received got;
  {
    Proxy proxy(
        sender.port(), [](std::size_t, std::string&) {}, std::move(change));
    got = receive_from(proxy.port());
  }
  return {got, sender.error()};
}

// After the listener's hello, proof and offset record: its first chunk.
constexpr std::size_t kListenerHandshake = kHandshake + kRecordHeader + 8 + kRecordTag;

TEST(RelayLink, AChangedByteOnTheWayToTheConnectorFailsTheChunk) {
  auto [got, error] = back_through_proxy([](std::size_t offset, std::string& bytes) {
    std::size_t at = kListenerHandshake + kRecordHeader + 100;
    if (at >= offset && at < offset + bytes.size()) bytes[at - offset] ^= 1;
  });
  EXPECT_EQ(got.error, "a relay chunk failed its check");
  EXPECT_EQ(got.bytes, "");
  EXPECT_NE(error, "");  // the sender never hears the stream was passed on
}

TEST(RelayLink, AReplayedChunkOnTheWayToTheConnectorFailsItsCheck) {
  constexpr std::size_t kFirstEnd = kListenerHandshake + kRecordHeader + 10000 + kRecordTag;
  std::string stream;
  auto [got, error] = back_through_proxy(
      [&](std::size_t offset, std::string& bytes) {
        stream += bytes;
        if (offset < kFirstEnd && kFirstEnd <= offset + bytes.size())
          bytes.insert(kFirstEnd - offset,
                       stream.substr(kListenerHandshake, kFirstEnd - kListenerHandshake));
      },
      {std::string(10000, 'a'), std::string(10000, 'b')});
  EXPECT_EQ(got.error, "a relay chunk failed its check");
  EXPECT_EQ(got.bytes, std::string(10000, 'a'));
}

TEST(RelayLink, AStreamToTheConnectorCutShortIsAnError) {
  auto [got, error] = back_through_proxy([](std::size_t offset, std::string& bytes) {
    if (offset + bytes.size() > kListenerHandshake + 5000)
      bytes.resize(kListenerHandshake + 5000 - std::min(offset, kListenerHandshake + 5000));
  });
  EXPECT_EQ(got.error, "the relay link closed");
}

TEST(RelayLink, TheStreamToTheConnectorCrossesTheLinkEncrypted) {
  std::string plaintext;
  while (plaintext.size() < 100000) plaintext += "a marker plain to see on the wire ";
  std::string wire;
  auto got =
      back_through_proxy([&](std::size_t, std::string& bytes) { wire += bytes; }, {plaintext})
          .first;
  EXPECT_EQ(got.bytes, plaintext);  // (the proxy closes both ways at the sender's end: it
                                    // never hears the stream was passed on)
  EXPECT_EQ(wire.find("a marker plain"), std::string::npos);
}

// Chunks of sizes from 1 byte to kRelayMaxChunk, each byte telling its offset in the stream
// (so that a record out of place shows); `all` is them joined.
std::vector<std::string> odd_chunks(std::mt19937& random, std::size_t count, std::string& all) {
  std::vector<std::string> chunks;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t size = random() % 8 == 0 ? kRelayMaxChunk : 1 + random() % 65536;
    std::string chunk(size, '\0');
    for (std::size_t at = 0; at < size; ++at) chunk[at] = char((all.size() + at) * 131 >> 5);
    all += chunk;
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

// Keepalives said from another thread as fast as it can, beside chunks of every size and
// across the end: every record arrives whole and in order (a beat inside a record, or one
// taking a record's number, fails its check), and none comes after the end (the receiver
// would close with it unread: a reset, and the finish() would fail). In every other round the
// receiver is slow, and records back up in the socket.
TEST(RelayLink, KeepalivesFromAThreadOfTheirOwnNeverMixWithTheStream) {
  std::mt19937 random(25);
  for (int round = 0; round < 30; ++round) {
    bool slow = round % 2;
    std::string all, got;
    Sender sender(odd_chunks(random, slow ? 24 : 12, all), {20us, 0ms, 300us});
    auto link = RelayLink::connect("127.0.0.1", sender.port(), secret('k'), Clock::now() + 5s,
                                   LinkFlow::to_connector);
    ASSERT_TRUE(link) << link.error();
    for (;;) {
      auto chunk = link->receive(2s);
      ASSERT_TRUE(chunk) << chunk.error() << " in round " << round;
      if (!*chunk) break;
      got += **chunk;
      if (slow) std::this_thread::sleep_for(1ms);
    }
    link->passed_on();
    link->close();
    ASSERT_EQ(got.size(), all.size()) << "round " << round;
    ASSERT_TRUE(got == all) << "round " << round;
    ASSERT_EQ(sender.error(), "") << "round " << round;
  }
}

// Keepalives said while the stream is held up and the receiver takes nothing: they fill the
// socket, and what it did not take (at times a record's first bytes only) waits in the link,
// to go before the next record.
TEST(RelayLink, KeepalivesTheSocketCouldNotTakeGoBeforeTheNextRecord) {
  Sender sender({"a", "b"}, {0us, 0ms, {}, 1500ms});
  auto link = RelayLink::connect("127.0.0.1", sender.port(), secret('k'), Clock::now() + 5s,
                                 LinkFlow::to_connector);
  ASSERT_TRUE(link) << link.error();
  auto first = link->receive(2s);
  ASSERT_TRUE(first && *first);
  std::this_thread::sleep_for(1000ms);
  auto second = link->receive(2s);
  ASSERT_TRUE(second && *second) << second.error();
  EXPECT_EQ(**second, "b");
  auto end = link->receive(2s);
  ASSERT_TRUE(end && !*end);
  link->passed_on();
  link->close();
  EXPECT_EQ(sender.error(), "");
}

TEST(RelayLink, KeepalivesFromAThreadOfTheirOwnDoGoOut) {
  std::mt19937 random(26);
  std::string all, wire;
  std::vector<std::string> chunks = odd_chunks(random, 12, all);
  std::size_t records = kListenerHandshake + sealed_size(0);  // and the end
  for (const auto& chunk : chunks) records += sealed_size(chunk.size());
  Sender sender(chunks, {20us, 0ms, 300us});
  Received got;
  {
    Proxy proxy(
        sender.port(), [](std::size_t, std::string&) {},
        [&](std::size_t, std::string& bytes) { wire += bytes; });
    got = receive_from(proxy.port());
  }
  EXPECT_EQ(got.error, "");
  EXPECT_TRUE(got.bytes == all);
  ASSERT_GT(wire.size(), records) << "no keepalive went";
  EXPECT_EQ((wire.size() - records) % sealed_size(0), 0u) << "only whole keepalives besides";
}

// A sender held up (its producer blocked in a read) for longer than the receiver waits: its
// keepalives from another thread keep the link up; without them the receiver gives up.
TEST(RelayLink, KeepalivesKeepALinkWhoseStreamIsHeldUp) {
  Sender beating({"a", "b"}, {100ms, 100ms, {}, 1200ms});
  Received got = receive_from(beating.port(), 500ms);
  EXPECT_EQ(got.error, "");
  EXPECT_EQ(got.bytes, "ab");
  EXPECT_EQ(beating.error(), "");

  Sender silent({"a", "b"}, {std::nullopt, 0ms, {}, 1200ms});
  EXPECT_EQ(receive_from(silent.port(), 500ms).error, "nothing came on the relay link");
}

TEST(RelayLink, TheStreamFlowsToTheConnectorWhenBothEndsSaySo) {
  std::string big(kRelayMaxChunk, 'y');
  Sender sender({"one ", big, " two"});
  Received got = receive_from(sender.port());
  EXPECT_EQ(got.error, "");
  EXPECT_EQ(got.bytes, "one " + big + " two");
  EXPECT_EQ(sender.error(), "");
}

TEST(RelayLink, EndsThatDisagreeOnTheFlowNeverLink) {
  Sender sender({"data"});
  auto link = RelayLink::connect("127.0.0.1", sender.port(), secret('k'), Clock::now() + 5s);
  ASSERT_FALSE(link);
  EXPECT_EQ(sender.error(), "the previous host never connected");
}

TEST(RelayLink, APortRangeSkipsPortsInUse) {
  auto first = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(first);
  auto next = relay_listen("127.0.0.1", first->port, std::uint16_t(first->port + 1));
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next->port, first->port + 1);
  EXPECT_FALSE(relay_listen("not-an-address", 0, 0));
  EXPECT_FALSE(relay_listen("127.0.0.1", 10, 9));
}

}  // namespace
}  // namespace pdx
