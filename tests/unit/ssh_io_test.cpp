#include "transport/ssh_io.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

namespace pdx {
namespace {

// A connected pair of non-blocking stream sockets: `ours` is the session's, `peer` the server's.
class SshIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    ours = fds[0];
    peer = fds[1];
  }
  void TearDown() override {
    ::close(ours);
    if (peer >= 0) ::close(peer);
  }

  ssize_t send(const std::string& bytes) {
    return socket_send(*io, ours, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  // All the peer can read now ("" if nothing).
  std::string peer_reads() {
    std::string got;
    char buffer[65536];
    for (ssize_t n; (n = ::recv(peer, buffer, sizeof buffer, 0)) > 0;) got.append(buffer, n);
    return got;
  }
  void peer_writes(const std::string& bytes) {
    ASSERT_EQ(::send(peer, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  }
  ssize_t recv(char* buffer, std::size_t length) {
    return socket_recv(*io, ours, buffer, length, 0);
  }

  std::unique_ptr<SocketIo> io = std::make_unique<SocketIo>();
  int ours = -1, peer = -1;
};

TEST_F(SshIoTest, SmallPacketsAreHeldAndLeaveTogether) {
  EXPECT_EQ(send("first"), 5);
  EXPECT_EQ(send("second"), 6);
  EXPECT_EQ(peer_reads(), "");
  EXPECT_TRUE(send_held(*io, ours));
  EXPECT_EQ(peer_reads(), "firstsecond");
  EXPECT_TRUE(send_held(*io, ours));  // nothing left: no-op
  EXPECT_EQ(peer_reads(), "");
}

TEST_F(SshIoTest, APacketThatDoesNotFitGoesOutAfterTheHeldOnes) {
  EXPECT_EQ(send("held"), 4);
  std::string big(SocketIo::kHeldMax, 'b');
  EXPECT_EQ(send(big), static_cast<ssize_t>(big.size()));
  EXPECT_EQ(io->held_size, 0u);
  EXPECT_EQ(peer_reads(), "held" + big);
}

TEST_F(SshIoTest, HeldBytesThatCannotGoOutMakeTheNextPacketWait) {
  int small = 4096;
  ASSERT_EQ(::setsockopt(ours, SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  std::string filler(4096, 'f');
  while (::send(ours, filler.data(), filler.size(), MSG_NOSIGNAL) > 0) {
  }
  ASSERT_EQ(errno, EAGAIN);
  EXPECT_EQ(send("held"), 4);
  EXPECT_FALSE(send_held(*io, ours));
  std::string big(SocketIo::kHeldMax + 1, 'b');  // not held even once the held bytes are out
  EXPECT_EQ(send(big), -EAGAIN);                 // not taken: libssh2 offers it again
  EXPECT_EQ(io->held_size, 4u);
  std::string drained = peer_reads();
  EXPECT_EQ(drained.find_first_not_of('f'), std::string::npos);
  EXPECT_TRUE(send_held(*io, ours));
  EXPECT_EQ(send(big), static_cast<ssize_t>(big.size()));
  EXPECT_EQ(peer_reads(), "held" + big);
}

TEST_F(SshIoTest, AFailedSendOfHeldBytesFailsEveryLaterSend) {
  EXPECT_EQ(send("held"), 4);
  ::close(peer);
  peer = -1;
  EXPECT_FALSE(send_held(*io, ours));
  EXPECT_EQ(io->send_error, EPIPE);
  EXPECT_EQ(send("more"), -EPIPE);
}

// A jump host's connection: no send is ever refused or cut, whatever the socket takes.
TEST_F(SshIoTest, QueueModeTakesEverySendWholeAndSendsInOrder) {
  ASSERT_EQ(send("held"), 4);
  queue_every_send(*io);
  std::string big(4 << 20, 'x');  // more than the socketpair takes at once
  ASSERT_EQ(send(big), static_cast<ssize_t>(big.size()));
  ASSERT_EQ(send("tail"), 4);
  EXPECT_FALSE(send_held(*io, ours));  // the socket is full
  std::string got;
  for (int i = 0; i < 10000 && got.size() < big.size() + 8; ++i) {
    got += peer_reads();
    send_held(*io, ours);
  }
  EXPECT_EQ(got, "held" + big + "tail");
  EXPECT_EQ(queued_size(*io), 0u);
  EXPECT_TRUE(send_held(*io, ours));
}

TEST_F(SshIoTest, AShortReadMeansNoRecvUntilTheSocketWasWaitedOn) {
  peer_writes("packet");
  char buffer[100];
  EXPECT_EQ(recv(buffer, sizeof buffer), 6);
  peer_writes("next");
  EXPECT_EQ(recv(buffer, sizeof buffer), -EAGAIN);  // found after the wait
  io->waited();
  EXPECT_EQ(recv(buffer, sizeof buffer), 4);
  EXPECT_EQ(std::string(buffer, 4), "next");
}

TEST_F(SshIoTest, AFullReadKeepsReading) {
  peer_writes("abcdef");
  char buffer[3];
  EXPECT_EQ(recv(buffer, sizeof buffer), 3);
  EXPECT_EQ(recv(buffer, sizeof buffer), 3);
  EXPECT_EQ(std::string(buffer, 3), "def");
  EXPECT_EQ(recv(buffer, sizeof buffer), -EAGAIN);
  EXPECT_TRUE(io->would_block);
}

TEST_F(SshIoTest, TheIdentificationLineIsReadWholeAndTheNextPacketLeftInTheSocket) {
  peer_writes("SSH-2.0-Test\r\n");
  const std::string packet("\x00\x00\x01\x0c packet", 11);
  peer_writes(packet);
  std::string line;
  char byte;
  do {
    ASSERT_EQ(recv(&byte, 1), 1);
    line += byte;
  } while (byte != '\n');
  EXPECT_EQ(line, "SSH-2.0-Test\r\n");
  char buffer[100];
  ssize_t n = recv(buffer, sizeof buffer);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buffer, n), packet);
}

TEST_F(SshIoTest, LinesBeforeTheIdentificationAreDropped) {
  peer_writes("a line before\r\n\r\nanother\nSSH-2.0-Test\r\n");
  char byte;
  ASSERT_EQ(recv(&byte, 1), 1);
  EXPECT_EQ(byte, 'S');
  EXPECT_EQ(io->lines_before, 3u);
  EXPECT_EQ(io->failure, nullptr);
}

TEST_F(SshIoTest, ALineBeforeTheIdentificationMayComeInPieces) {
  peer_writes("a line ");
  char byte;
  EXPECT_EQ(recv(&byte, 1), -EAGAIN);
  io->waited();
  peer_writes("SSH- in the middle is no identification\nSSH-2.0-Test\r\n");
  ASSERT_EQ(recv(&byte, 1), 1);
  EXPECT_EQ(byte, 'S');
  EXPECT_EQ(io->lines_before, 1u);
}

TEST_F(SshIoTest, EndlessLinesBeforeTheIdentificationAreRefusedAfter1024) {
  std::string lines;
  for (int i = 0; i < 100; ++i) lines += "not ssh, a line before the banner\r\n";
  char byte;
  ssize_t n = -EAGAIN;
  int calls = 0;
  for (; n == -EAGAIN && calls < 100; ++calls) {
    peer_writes(lines);
    n = recv(&byte, 1);
    EXPECT_LE(io->lines_before, SocketIo::kLinesBefore + 1);
    io->waited();
  }
  EXPECT_EQ(n, -EPROTO);
  EXPECT_STREQ(io->failure, "no SSH identification in the server's first 1024 lines");
}

TEST_F(SshIoTest, ALongLineBeforeTheIdentificationIsRefused) {
  std::string chunk(4096, 'x');
  char byte;
  ssize_t n = -EAGAIN;
  for (int i = 0; i < 4 && n == -EAGAIN; ++i) {
    peer_writes(chunk);
    n = recv(&byte, 1);
    io->waited();
  }
  EXPECT_EQ(n, -EPROTO);
  EXPECT_STREQ(io->failure, "a line of over 8192 bytes before the server's SSH identification");
}

TEST_F(SshIoTest, DroppingLinesLetsTheEventLoopRunEvery64KiB) {
  std::string line(100, 'x');
  line += '\n';
  std::string lines;
  while (lines.size() < SocketIo::kSkipPerCall + 10 * line.size()) lines += line;
  peer_writes(lines);
  char byte;
  EXPECT_EQ(recv(&byte, 1), -EAGAIN);  // lines are left: the socket wakes the session again
  EXPECT_GE(io->lines_before * line.size(), SocketIo::kSkipPerCall);
  EXPECT_LT(io->lines_before * line.size(), lines.size());
  io->waited();
  peer_writes("SSH-2.0-Test\r\n");
  EXPECT_EQ(recv(&byte, 1), 1);
  EXPECT_EQ(io->lines_before * line.size(), lines.size());
}

TEST_F(SshIoTest, OneWaitReadsAtMostTheBudget) {
  std::string chunk(65536, 'p'), buffer(chunk.size(), '\0');
  std::size_t read = 0;
  ssize_t n = 0;
  while (read <= SocketIo::kReadBudget) {
    peer_writes(chunk);  // each read takes all of it: never a short read
    if ((n = recv(buffer.data(), buffer.size())) <= 0) break;
    read += static_cast<std::size_t>(n);
  }
  EXPECT_EQ(n, -EAGAIN);  // though the socket holds a chunk
  EXPECT_EQ(read, SocketIo::kReadBudget);
  io->waited();
  EXPECT_EQ(recv(buffer.data(), buffer.size()), static_cast<ssize_t>(chunk.size()));
}

TEST_F(SshIoTest, AShutDownSocketSaysEndOfFileAndRefusesSends) {
  peer_writes("x");
  char buffer[100];
  EXPECT_EQ(recv(buffer, sizeof buffer), 1);  // a short read: no recv() until a wait
  EXPECT_EQ(send("held"), 4);
  ::shutdown(ours, SHUT_RDWR);
  io->shut_down();
  EXPECT_EQ(recv(buffer, sizeof buffer), 0);  // libssh2 sees the end, not a reason to wait
  EXPECT_EQ(send("more"), -EPIPE);
  EXPECT_EQ(io->held_size, 0u);
  EXPECT_EQ(peer_reads(), "");  // the held bytes were dropped
}

TEST_F(SshIoTest, NothingToReadIsEagain) {
  char byte;
  EXPECT_EQ(recv(&byte, 1), -EAGAIN);
  EXPECT_TRUE(io->would_block);
}

}  // namespace
}  // namespace pdx
