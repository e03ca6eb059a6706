#include "distribute/relay/relay_head.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <string>
#include <thread>

#include "agent/relay_link.h"

namespace pdx {
namespace {

using namespace std::chrono_literals;

std::string varied(std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = char((i * 13 + i / 257) % 256);
  return out;
}

// A pipe that `bytes` are written into on a thread of its own, then closed: the group's stream.
class Stream {
 public:
  explicit Stream(std::string bytes) : bytes_(std::move(bytes)) {
    std::signal(SIGPIPE, SIG_IGN);  // a read end closed first fails the write
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read_ = Fd(fds[0]);
    writer_ = std::thread([this, fd = fds[1]] {
      for (std::size_t at = 0; at < bytes_.size();) {
        ssize_t n = ::write(fd, bytes_.data() + at, bytes_.size() - at);
        if (n <= 0) break;
        at += std::size_t(n);
      }
      ::close(fd);
    });
  }
  ~Stream() {
    read_.reset();
    writer_.join();
  }
  int fd() const { return read_.get(); }

 private:
  std::string bytes_;
  Fd read_;
  std::thread writer_;
};

// Reader 0 of `feed`, as the head's session takes it: `limit` bytes at most; whether it ended.
std::string take(HeadFeed& feed, std::size_t limit, bool& ended) {
  std::string got;
  ended = false;
  while (got.size() < limit) {
    InputPiece piece = feed.next();
    if (piece.state == InputPiece::State::end) return ended = true, got;
    if (piece.state == InputPiece::State::failed) return got;
    if (piece.state == InputPiece::State::wait) {
      std::this_thread::sleep_for(1ms);
      continue;
    }
    std::size_t n = std::min(piece.bytes.size(), limit - got.size());
    got.append(piece.bytes.substr(0, n));
    feed.consume(n);
  }
  return got;
}

const std::string kSecret(kRelaySecretSize, 'h');

// The next host of the chain, on a thread: accepts the bridge around the head on `listener`,
// holding `holds` bytes of the stream already, and takes the rest into `got`.
std::thread next_host_takes(int listener, std::uint64_t holds, std::string& got) {
  return std::thread([listener, holds, &got] {
    auto link = RelayLink::accept(listener, kSecret, RelayLink::Clock::now() + 10s, holds);
    ASSERT_TRUE(link) << link.error();
    for (;;) {
      auto chunk = link->receive(5s);
      ASSERT_TRUE(chunk) << chunk.error();
      if (!*chunk) break;
      got += **chunk;
    }
    link->passed_on();
  });
}

// What the feed says of the bridge around the head to the next host, on `port`.
std::string bridged_to(std::uint16_t port, std::uint64_t holds) {
  return ": bridged around it to 127.0.0.1 port " + std::to_string(port) + " from offset " +
         std::to_string(holds);
}

TEST(HeadFeed, TheHeadTakesTheWholeStreamAndNobodyIsBridged) {
  std::string data = varied(3 * 1024 * 1024 + 7);
  Stream stream(data);
  std::size_t counted = 0;
  auto feed = HeadFeed::start(stream.fd(), kSecret, {}, 5s, [&](std::size_t n) { counted += n; });
  ASSERT_TRUE(feed) << feed.error();
  bool ended;
  EXPECT_EQ(take(**feed, data.size() + 1, ended), data);
  EXPECT_TRUE(ended);
  EXPECT_EQ(counted, data.size()) << "on_consume told of every byte";
  (*feed)->head_ended(false);
  EXPECT_EQ((*feed)->bridged(), "");
}

TEST(HeadFeed, AHeadGoneBeforeItPassedTheStreamOnIsBridgedAroundFromTheOffsetItsNextHolds) {
  std::string data = varied(9 * 1024 * 1024 + 3);
  Stream stream(data);
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener) << listener.error();
  RelayBranch next{RelayPeer{"127.0.0.1", listener->port}, {}};
  auto feed = HeadFeed::start(stream.fd(), kSecret, {next}, 5s, nullptr);
  ASSERT_TRUE(feed) << feed.error();
  bool ended;
  std::string head_took = take(**feed, 2 * 1024 * 1024, ended);
  ASSERT_EQ(head_took.size(), 2u * 1024 * 1024);
  const std::uint64_t holds = 1024 * 1024 + 5;  // what the next host had of it
  std::string got;
  std::thread next_host = next_host_takes(listener->fd.get(), holds, got);
  (*feed)->head_ended(true);  // its session ended without relay_end: killed
  next_host.join();
  EXPECT_TRUE(got == data.substr(holds)) << "the stream from the offset it held, to its end";
  EXPECT_EQ((*feed)->bridged(), bridged_to(listener->port, holds));
}

TEST(HeadFeed, AHeadThatTakesNothingForItsStallIsFailedAndTheStreamDrained) {
  Stream stream(varied(16 * 1024 * 1024));
  RelayBranch next{RelayPeer{"127.0.0.1", 1}, {}};  // never linked to
  auto feed = HeadFeed::start(stream.fd(), kSecret, {next}, 1s, nullptr);
  ASSERT_TRUE(feed) << feed.error();
  std::mutex mutex;
  std::string failed;
  (*feed)->on_stall([&](const std::string& why) {
    std::lock_guard lock(mutex);
    failed = why;
  });
  auto said = [&] {
    std::lock_guard lock(mutex);
    return failed;
  };
  for (int i = 0; i < 400 && said().empty(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(said(), "took nothing of its input for 1 s");
  EXPECT_EQ((*feed)->next().state, InputPiece::State::failed) << "what follows is not its";
  (*feed)->head_ended(true);  // its session ends, failed: it is not bridged around
  EXPECT_EQ((*feed)->bridged(), "");
  // The stream is read to its end (the writer's thread joins): nobody holds it up.
}

TEST(HeadFeed, AFeedDestroyedMidStreamStopsReading) {
  Stream stream(varied(32 * 1024 * 1024));
  {
    auto feed = HeadFeed::start(stream.fd(), kSecret, {}, 60s, nullptr);
    ASSERT_TRUE(feed) << feed.error();
    bool ended;
    EXPECT_EQ(take(**feed, 1024, ended).size(), 1024u);
  }
}

// A head set up to listen, pdx's link to it: what it receives, up to `limit` bytes (then it
// drops the link, as a head that failed), and whether the stream ended.
struct LinkedHead {
  explicit LinkedHead(std::size_t limit = std::size_t(-1)) {
    auto listening = relay_listen("127.0.0.1", 0, 0);
    EXPECT_TRUE(listening) << listening.error();
    listener = std::move(*listening);
    thread = std::thread([this, limit] {
      auto link = RelayLink::accept(listener.fd.get(), kSecret, RelayLink::Clock::now() + 10s, 0);
      ASSERT_TRUE(link) << link.error();
      while (got.size() < limit) {
        auto chunk = link->receive(5s);
        if (!chunk || !*chunk) return void(ended = bool(chunk));
        got += **chunk;
      }
    });
  }
  ~LinkedHead() {
    if (thread.joinable()) thread.join();
  }
  RelayLink link() {
    auto made =
        RelayLink::connect("127.0.0.1", listener.port, kSecret, RelayLink::Clock::now() + 5s);
    EXPECT_TRUE(made) << made.error();
    return std::move(*made);
  }

  RelayListener listener;
  std::string got;
  bool ended = false;
  std::thread thread;
};

TEST(HeadFeed, OverALinkTheHeadTakesTheWholeStreamNotItsStdin) {
  std::string data = varied(5 * 1024 * 1024 + 11);
  Stream stream(data);
  LinkedHead head;
  std::atomic<std::size_t> counted = 0;
  auto feed = HeadFeed::start(
      stream.fd(), kSecret, {}, 5s, [&](std::size_t n) { counted += n; }, head.link());
  ASSERT_TRUE(feed) << feed.error();
  head.thread.join();
  EXPECT_TRUE(head.ended);
  EXPECT_TRUE(head.got == data) << "the whole stream, in order, over the link";
  EXPECT_EQ(counted, data.size()) << "on_consume told of every byte sent";
  (*feed)->head_ended(false);
  EXPECT_EQ((*feed)->bridged(), "");
}

TEST(HeadFeed, AHeadWhoseLinkBrokeIsBridgedAroundOnceItsSessionEnds) {
  std::string data = varied(9 * 1024 * 1024 + 3);
  Stream stream(data);
  LinkedHead head(2 * 1024 * 1024);  // then it drops its link: a record failed its check
  auto listener = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(listener) << listener.error();
  RelayBranch next{RelayPeer{"127.0.0.1", listener->port}, {}};
  auto feed = HeadFeed::start(stream.fd(), kSecret, {next}, 5s, nullptr, head.link());
  ASSERT_TRUE(feed) << feed.error();
  head.thread.join();
  const std::uint64_t holds = 1024 * 1024 + 5;  // what the next host had of it
  std::string got;
  std::thread next_host = next_host_takes(listener->fd.get(), holds, got);
  std::this_thread::sleep_for(200ms);  // its session ends a little after its link
  (*feed)->head_ended(true);
  next_host.join();
  EXPECT_TRUE(got == data.substr(holds)) << "the stream from the offset it held, to its end";
  EXPECT_EQ((*feed)->bridged(), bridged_to(listener->port, holds));
}

}  // namespace
}  // namespace pdx
