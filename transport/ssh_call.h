#pragma once
// Driving non-blocking libssh2 from Boost.Asio (ARCHITECTURE.md, "Driving libssh2 from
// Boost.Asio"): a libssh2 call that returns LIBSSH2_ERROR_EAGAIN is called again, with the same
// arguments, once the socket is ready in the direction libssh2_session_block_directions() names.
// Nothing spins and nothing but libssh2 reads or writes the socket: Asio only waits on it.
#include "base/awaitable.h"

#include <libssh2.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <optional>
#include <string>

#include "transport/ssh_session_context.h"
#include "transport/transport.h"

namespace pdx {

/// How a step of a host's session failed. A step returns `Step`: nullopt when it succeeded.
struct StepFailure {
  Failure failure = Failure::protocol;
  std::string error;  // one line, no host name
};
using Step = std::optional<StepFailure>;

/// A ssh_call() result that is not libssh2's: the wait was ended by a deadline or Ctrl-C.
inline constexpr long kWaitAborted = -100000;

/// One host's socket and libssh2 session, and whether its waiting has been ended. Lives on the
/// host's strand; abort() is called there (by a deadline timer or the stop callback). Not moved:
/// its session points at its context.
class SshWaiter {
 public:
  explicit SshWaiter(boost::asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}
  SshWaiter(const SshWaiter&) = delete;
  SshWaiter& operator=(const SshWaiter&) = delete;

  boost::asio::ip::tcp::socket& socket() { return socket_; }
  LIBSSH2_SESSION* session() const { return session_; }
  /// Takes `session` on (null: none), its abstract pointer set to context().
  void set_session(LIBSSH2_SESSION* session);
  SessionContext& context() { return context_; }

  /// Ends the current wait and every later one: the step in progress reports `failure`.
  /// The first reason given wins (a deadline that fires after Ctrl-C does not rename it).
  void abort(Failure failure, std::string error);
  bool aborted() const { return abort_.has_value(); }
  /// Lets waits happen again after an abort (for the last words with the host, under a new
  /// deadline).
  void resume() { abort_.reset(); }

  /// What wait() waits for: the socket ready the way libssh2 is blocked, or writable whatever
  /// libssh2 says.
  enum class Until { libssh2_unblocked, writable };
  /// Sends what pdx's send holds for libssh2 (ssh_io.h), at once or, when waiting for a reply,
  /// once the other ready handlers have run; waits until the socket is ready as `until` says, or
  /// for room if some is left held. False once aborted.
  boost::asio::awaitable<bool> wait(Until until = Until::libssh2_unblocked);
  /// Sends what pdx's send holds, without waiting: true if nothing is left held.
  bool send_held(int flags = 0) {
    return pdx::send_held(context_.io, socket_.native_handle(), flags);
  }

  /// The failure of a step whose libssh2 call returned `rc` (< 0): the abort reason for
  /// kWaitAborted, else a protocol failure naming `what` and why pdx's recv refused the
  /// server's bytes (SocketIo::failure), "connection lost (REASON)" when the socket failed
  /// (closed by the host, or its errno), or libssh2's message.
  StepFailure failure(long rc, const std::string& what);

 private:
  std::string lost_reason();  // why the socket failed, as failure() says it
  void send_held_later();

  boost::asio::ip::tcp::socket socket_;
  LIBSSH2_SESSION* session_ = nullptr;  // owned by the host's session, freed before socket_
  SessionContext context_;
  std::optional<StepFailure> abort_;
  bool held_stuck_ = false;  // held bytes found no room in a send_held_later(): wait for room
};

/// Repeats `call` (returning an int or ssize_t libssh2 status) until it stops asking to wait.
template <class Call>
boost::asio::awaitable<long> ssh_call(SshWaiter& w, Call call) {
  for (;;) {
    long rc = static_cast<long>(call());
    if (rc != LIBSSH2_ERROR_EAGAIN) co_return rc;
    if (!co_await w.wait()) co_return kWaitAborted;
  }
}

/// The same for libssh2 calls that return a pointer: null with last_errno EAGAIN means wait.
/// Null with `rc` set to the error (kWaitAborted when aborted) on failure.
template <class Call>
auto ssh_call_ptr(SshWaiter& w, long& rc, Call call) -> boost::asio::awaitable<decltype(call())> {
  for (;;) {
    auto* p = call();
    rc = p ? 0 : libssh2_session_last_errno(w.session());
    if (p || rc != LIBSSH2_ERROR_EAGAIN) co_return p;
    if (!co_await w.wait()) {
      rc = kWaitAborted;
      co_return nullptr;
    }
  }
}

}  // namespace pdx
