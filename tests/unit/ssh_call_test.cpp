#include "transport/ssh_call.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>

namespace pdx {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// A session's socket on loopback whose other end (the host's) the test closes.
class LostConnection : public ::testing::Test {
 protected:
  LostConnection() : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    tcp::socket ours(io_);
    ours.connect(acceptor_.local_endpoint());
    host_ = acceptor_.accept();
    waiter_.emplace(std::move(ours));
  }
  // The host's end goes: with `reset`, as a RST (SO_LINGER 0), else as a FIN. Returns once it
  // reached our end.
  void host_closes(bool reset) {
    if (reset) host_.set_option(asio::socket_base::linger(true, 0));
    host_.close();
    pollfd ready{waiter_->socket().native_handle(), POLLIN, 0};
    ASSERT_EQ(::poll(&ready, 1, 5000), 1);
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  tcp::socket host_{io_};
  std::optional<SshWaiter> waiter_;
};

TEST_F(LostConnection, ClosedByTheHostIsSaidSo) {
  host_closes(false);
  StepFailure failed = waiter_->failure(LIBSSH2_ERROR_SOCKET_RECV, "reading output");
  EXPECT_EQ(failed.failure, Failure::protocol);
  EXPECT_EQ(failed.error, "reading output: connection lost (closed by the host)");
}

TEST_F(LostConnection, AResetIsNamedByItsErrno) {
  host_closes(true);
  EXPECT_EQ(waiter_->failure(LIBSSH2_ERROR_SOCKET_SEND, "sending input").error,
            "sending input: connection lost (Connection reset by peer)");
}

TEST_F(LostConnection, AnAbortIsNotALoss) {
  waiter_->abort(Failure::interrupted, "interrupted");
  EXPECT_EQ(waiter_->failure(kWaitAborted, "reading output").error, "interrupted");
}

}  // namespace
}  // namespace pdx
