#include "transport/mux_line.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

namespace pdx::mux {
namespace {
namespace asio = boost::asio;

struct Pair {
  Fd a, b;
};

Pair socket_pair() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {Fd(fds[0]), Fd(fds[1])};
}

TEST(MuxLine, FramesArriveWholeAndInOrderPastTheSocketBuffer) {
  asio::io_context ctx;
  auto [a, b] = socket_pair();
  auto writer = std::make_shared<Line>(ctx.get_executor(), std::move(a));
  auto reader = std::make_shared<Line>(ctx.get_executor(), std::move(b));
  for (char c : std::string("abcdefghijklmnop"))
    writer->send(encode_output(Stream::out, std::string(kChunk, c)));
  EXPECT_GT(writer->queued(), 0u);  // more than the socket takes at once: the rest waits
  std::string seen;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 16; ++i) {
          auto frame = co_await reader->read();
          EXPECT_TRUE(frame);
          if (!frame) co_return;
          auto out = decode_output(frame->body);
          EXPECT_TRUE(out.ok());
          EXPECT_EQ(out->second, std::string(kChunk, out->second.front()));
          seen.push_back(out->second.front());
        }
        writer->close();
        EXPECT_FALSE(co_await reader->read());  // the end
        EXPECT_EQ(reader->error(), "");
      },
      asio::detached);
  ctx.run();
  EXPECT_EQ(seen, "abcdefghijklmnop");
}

TEST(MuxLine, ABadFrameEndsTheLine) {
  asio::io_context ctx;
  auto [a, b] = socket_pair();
  ASSERT_EQ(::write(a.get(), "\0\0\0\x01\x20", 5), 5);  // an unknown type
  auto reader = std::make_shared<Line>(ctx.get_executor(), std::move(b));
  bool ended = false;
  asio::co_spawn(
      ctx, [&]() -> asio::awaitable<void> { ended = !(co_await reader->read()); }, asio::detached);
  ctx.run();
  EXPECT_TRUE(ended);
  EXPECT_NE(reader->error(), "");
  EXPECT_FALSE(reader->open());
}

TEST(MuxLine, DrainGivesUpOnAReaderThatNeverReads) {
  asio::io_context ctx;
  auto [a, b] = socket_pair();
  auto writer = std::make_shared<Line>(ctx.get_executor(), std::move(a));
  for (int i = 0; i < 64; ++i) writer->send(encode_output(Stream::err, std::string(kChunk, 'e')));
  EXPECT_FALSE(writer->drain_to(0, std::chrono::milliseconds(50)));
  EXPECT_FALSE(writer->open());
  EXPECT_NE(writer->error(), "");
}

}  // namespace
}  // namespace pdx::mux
