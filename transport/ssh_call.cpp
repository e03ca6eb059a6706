#include "transport/ssh_call.h"

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
  bool writable = !send_held() || until == Until::writable;
  int directions =
      writable ? LIBSSH2_SESSION_BLOCK_OUTBOUND : libssh2_session_block_directions(session_);
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

StepFailure SshWaiter::failure(long rc, const std::string& what) const {
  if (rc == kWaitAborted && abort_) return *abort_;
  char* message = nullptr;
  if (session_) libssh2_session_last_error(session_, &message, nullptr, 0);
  std::string detail = message && *message ? message : "libssh2 error " + std::to_string(rc);
  return StepFailure{Failure::protocol, what + ": " + detail};
}

}  // namespace pdx
