// A run <-> holder connection as frames.
#include "transport/mux_line.h"

#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>

namespace pdx::mux {
namespace asio = boost::asio;

Line::Line(asio::any_io_executor strand, Fd fd) : socket_(std::move(strand)) {
  socket_.assign(asio::local::stream_protocol(), fd.release());
  socket_.native_non_blocking(true);
}

asio::awaitable<std::optional<Frame>> Line::read() {
  auto self = shared_from_this();
  char buffer[16384];
  for (;;) {
    auto frame = parser_.next();
    if (!frame) {
      fail(frame.error());
      co_return std::nullopt;
    }
    if (*frame) co_return std::move(*frame);
    if (!open()) co_return std::nullopt;
    boost::system::error_code ec;
    std::size_t n = co_await socket_.async_read_some(asio::buffer(buffer),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec != asio::error::eof && ec != asio::error::operation_aborted) fail(ec.message());
      close();
      co_return std::nullopt;
    }
    parser_.feed(std::string_view(buffer, n));
  }
}

void Line::send(std::string frame) {
  if (!open()) return;
  out_.append(frame);
  flush();
}

void Line::flush() {
  while (queued() > 0 && open()) {
    ssize_t n = ::send(socket_.native_handle(), out_.data() + out_at_, queued(),
                       MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) return fail(std::strerror(errno));
    out_at_ += static_cast<std::size_t>(n);
  }
  if (out_at_ == out_.size()) {
    out_.clear();
    out_at_ = 0;
  } else if (out_at_ > out_.size() / 2) {
    out_.erase(0, out_at_);
    out_at_ = 0;
  }
  if (queued() > 0 && open() && !waiting_) {
    waiting_ = true;
    socket_.async_wait(asio::socket_base::wait_write,
                       [self = shared_from_this()](boost::system::error_code) {
                         self->waiting_ = false;
                         self->flush();
                       });
  }
}

bool Line::drain_to(std::size_t max, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (queued() > max && open()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      fail("the run reads its output too slowly");
      return false;
    }
    pollfd p{socket_.native_handle(), POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
    flush();
  }
  return open();
}

void Line::fail(std::string error) {
  if (error_.empty()) error_ = std::move(error);
  close();
}

void Line::close() {
  boost::system::error_code ignored;
  if (socket_.is_open()) {
    socket_.shutdown(asio::socket_base::shutdown_both, ignored);
    socket_.close(ignored);
  }
}

}  // namespace pdx::mux
