#include "transport/ssh_call.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace pdx {

namespace asio = boost::asio;
using asio::ip::tcp;

void SshWaiter::abort(Failure failure, std::string error) {
  if (!abort_) abort_ = StepFailure{failure, std::move(error)};
  boost::system::error_code ignored;
  socket_.cancel(ignored);  // the pending wait completes with operation_aborted
}

void SshWaiter::set_session(LIBSSH2_SESSION* session) {
  session_ = session;
  if (session_) *libssh2_session_abstract(session_) = &context_;
}

asio::awaitable<bool> SshWaiter::wait(Until until) {
  if (abort_) co_return false;
  int directions = until == Until::writable ? LIBSSH2_SESSION_BLOCK_OUTBOUND
                                            : libssh2_session_block_directions(session_);
  if (context_.io.held_size > 0) {
    if (directions == LIBSSH2_SESSION_BLOCK_INBOUND && !held_stuck_)
      send_held_later();
    else if (!send_held())
      directions = LIBSSH2_SESSION_BLOCK_OUTBOUND;
  }
  held_stuck_ = false;
  boost::system::error_code ec;  // a socket error is left for libssh2's next call to report
  if (directions & LIBSSH2_SESSION_BLOCK_OUTBOUND)
    co_await socket_.async_wait(tcp::socket::wait_write,
                                asio::redirect_error(asio::use_awaitable, ec));
  else if (directions & LIBSSH2_SESSION_BLOCK_INBOUND)
    co_await socket_.async_wait(tcp::socket::wait_read,
                                asio::redirect_error(asio::use_awaitable, ec));
  else
    co_await asio::post(socket_.get_executor(), asio::use_awaitable);
  context_.io.waited();  // whatever woke us, recv() may find something now
  co_return !abort_;
}

// Waiting for a reply, what pdx's send holds goes out as late as it can: from a handler posted
// behind the completions already ready, the other hosts' events of this round. The server that
// the send wakes takes the CPU on the way out of sendmsg (measured: most of pdx's preemptions),
// and then finds pdx with little left to do. The strand runs the handler before this wait can
// end, so `this` is alive. If the socket has no room for it all, the wait is ended, and the next
// one sends at once and waits for room.
void SshWaiter::send_held_later() {
  asio::post(socket_.get_executor(), [this] {
    if (send_held()) return;
    held_stuck_ = true;
    boost::system::error_code ignored;
    socket_.cancel(ignored);
  });
}

std::string SshWaiter::lost_reason() {
  int fd = socket_.native_handle();
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error != 0)
    return std::strerror(error);
  char byte;
  ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return "closed by the host";
  if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return std::strerror(errno);
  if (context_.io.send_error != 0) return std::strerror(context_.io.send_error);
  return "the socket failed";
}

StepFailure SshWaiter::failure(long rc, const std::string& what) {
  if (rc == kWaitAborted && abort_) return *abort_;
  if (context_.io.failure) return StepFailure{Failure::protocol, what + ": " + context_.io.failure};
  if (rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_SEND ||
      rc == LIBSSH2_ERROR_SOCKET_DISCONNECT)
    return StepFailure{Failure::protocol, what + ": connection lost (" + lost_reason() + ")"};
  // The end came before the host's first line (a ProxyCommand that exited): libssh2 says
  // "Failed getting banner", which the host's closing is the cause of.
  if (rc == LIBSSH2_ERROR_BANNER_RECV)
    if (std::string reason = lost_reason(); reason == "closed by the host")
      return StepFailure{Failure::protocol, what + ": connection lost (" + reason + ")"};
  char* message = nullptr;
  if (session_) libssh2_session_last_error(session_, &message, nullptr, 0);
  std::string detail = message && *message ? message : "libssh2 error " + std::to_string(rc);
  return StepFailure{Failure::protocol, what + ": " + detail};
}

}  // namespace pdx
