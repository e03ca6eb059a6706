#pragma once
// One Unix-socket connection between a run and the holder, as frames (transport/mux_protocol.h),
// on one strand: read() the next frame, send() queues one and sends what the socket takes now,
// the rest as it takes it (no two writes ever interleave).
#include "base/awaitable.h"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "base/fd.h"
#include "transport/mux_protocol.h"

namespace pdx::mux {

class Line : public std::enable_shared_from_this<Line> {
 public:
  Line(boost::asio::any_io_executor strand, Fd fd);
  /// The next frame; nullopt at the end of the connection or on a bad frame (error() says).
  boost::asio::awaitable<std::optional<Frame>> read();
  /// Queues `frame` (from encode*()); dropped once the line is closed or broken.
  void send(std::string frame);
  /// Bytes queued and not yet sent.
  std::size_t queued() const { return out_.size() - out_at_; }
  /// Blocks the thread until at most `max` bytes are queued, for at most `limit`: the holder's
  /// bound on what a slow reader costs it. False: the line broke or the time ran out.
  bool drain_to(std::size_t max, std::chrono::milliseconds limit);
  /// Ends the connection; a read() in progress returns nullopt. Idempotent.
  void close();
  bool open() const { return socket_.is_open() && error_.empty(); }
  const std::string& error() const { return error_; }
  int native_handle() { return socket_.native_handle(); }

 private:
  void flush();
  void fail(std::string error);

  boost::asio::local::stream_protocol::socket socket_;
  FrameParser parser_;
  std::string out_;
  std::size_t out_at_ = 0;
  bool waiting_ = false;  // an async_wait for writability is pending
  std::string error_;
};

}  // namespace pdx::mux
