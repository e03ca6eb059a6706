#pragma once
// The frames between a pdx run and the holder of its warm connections (transport/mux_holder.h),
// over a Unix socket. Each frame: a 4-byte big-endian length (of what follows), a type byte,
// the body. Bodies are checked as anything a host sends: a frame that is too long, of an
// unknown type, or whose body does not parse whole ends the connection.
//
//   run -> holder: open (host, options' fingerprint, path) | exec | input | input_end | stop
//                  | check | exit
//   holder -> run: opened (how the host was reached) | open_failed (HostResult) | declined
//                  | output | ack | result | pid (to check and exit)
//
// One exec at a time per connection; stdin flows with at most kInputWindow bytes not acked.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "transport/transport.h"

namespace pdx::mux {

enum class Type : std::uint8_t {
  open = 1,
  exec,
  input,
  input_end,
  stop,
  check,
  exit,
  opened = 64,
  open_failed,
  declined,
  output,
  ack,
  result,
  pid,
};

/// A frame's type and body as read.
struct Frame {
  Type type{};
  std::string body;
};

/// The largest frame either side sends or takes (a command line or an output chunk).
constexpr std::size_t kMaxFrame = 1 << 20;
/// An output or input chunk's largest size.
constexpr std::size_t kChunk = 64 * 1024;
/// Stdin bytes in flight, not yet taken by the host's command.
constexpr std::size_t kInputWindow = 1 << 20;

struct OpenRequest {
  std::string fingerprint;  // the ssh options the holder must have been started with
  Endpoint endpoint;
  std::string label;
  std::optional<std::uint64_t> connect_timeout_ms;
  std::string path;  // the control path the holder should answer on for this host
};

struct ExecStart {
  std::string command;
  std::vector<EnvVar> env;
  std::uint64_t timeout_ms = 0;
  bool has_input = false;
};

/// Frames ready to send (header included).
std::string encode(Type type, std::string_view body = {});
std::string encode_open(const OpenRequest& r);
std::string encode_exec(const ExecStart& e);
std::string encode_output(Stream stream, std::string_view bytes);
std::string encode_u64(Type type, std::uint64_t n);         // ack, pid
std::string encode_result(Type type, const HostResult& r);  // result, open_failed
/// opened: whether the held session reached its host over a TCP connection of its own
/// (Session::reached_over_tcp(); a holder that does not say so sends no body: no).
std::string encode_opened(bool reached_over_tcp);

Result<OpenRequest> decode_open(std::string_view body);
Result<ExecStart> decode_exec(std::string_view body);
Result<std::pair<Stream, std::string_view>> decode_output(std::string_view body);
Result<std::uint64_t> decode_u64(std::string_view body);
Result<HostResult> decode_result(std::string_view body);
Result<bool> decode_opened(std::string_view body);

/// Splits a byte stream into frames. feed() what was read, then next() until nullopt.
class FrameParser {
 public:
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  /// The next whole frame; nullopt: more bytes needed. Error: a bad header (the stream is spent).
  Result<std::optional<Frame>> next();
  /// Bytes held that are not yet a whole frame.
  std::size_t held() const { return buffer_.size() - at_; }

 private:
  std::string buffer_;
  std::size_t at_ = 0;
};

}  // namespace pdx::mux
