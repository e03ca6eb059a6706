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
