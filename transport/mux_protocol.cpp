// The run <-> holder frames: writing them, and reading them as untrusted bytes.
#include "transport/mux_protocol.h"

namespace pdx::mux {

namespace {

void put_u32(std::string& out, std::uint32_t n) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(n >> shift));
}

void put_u64(std::string& out, std::uint64_t n) {
  put_u32(out, static_cast<std::uint32_t>(n >> 32));
  put_u32(out, static_cast<std::uint32_t>(n));
}

void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

/// Reads a body's fields in order; any read past its end is an error, as are bytes left over.
class Body {
 public:
  explicit Body(std::string_view body) : rest_(body) {}
  Result<std::uint32_t> u32() {
    if (rest_.size() < 4) return Error{"control frame cut short"};
    std::uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = n << 8 | static_cast<unsigned char>(rest_[i]);
    rest_.remove_prefix(4);
    return n;
  }
  Result<std::uint64_t> u64() {
    std::uint64_t high = TRY(u32());
    std::uint64_t low = TRY(u32());
    return high << 32 | low;
  }
  Result<std::string_view> str() {
    std::uint32_t n = TRY(u32());
    if (rest_.size() < n) return Error{"control frame cut short"};
    std::string_view s = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return s;
  }
  Result<void> end() const {
    if (!rest_.empty()) return Error{"control frame has trailing bytes"};
    return {};
  }

 private:
  std::string_view rest_;
};

constexpr std::uint64_t kNoTimeout = ~std::uint64_t{0};

}  // namespace

std::string encode(Type type, std::string_view body) {
  std::string out;
  out.reserve(5 + body.size());
  put_u32(out, static_cast<std::uint32_t>(body.size() + 1));
  out.push_back(static_cast<char>(type));
  out.append(body);
  return out;
}

std::string encode_open(const OpenRequest& r) {
  std::string body;
  put_str(body, r.fingerprint);
  put_str(body, r.endpoint.host);
  put_str(body, r.endpoint.user);
  put_u32(body, static_cast<std::uint32_t>(r.endpoint.port));
  put_str(body, r.label);
  put_u64(body, r.connect_timeout_ms.value_or(kNoTimeout));
  put_str(body, r.path);
  return encode(Type::open, body);
}

Result<OpenRequest> decode_open(std::string_view body) {
  Body b(body);
  OpenRequest r;
  r.fingerprint = TRY(b.str());
  r.endpoint.host = TRY(b.str());
  r.endpoint.user = TRY(b.str());
  std::uint32_t port = TRY(b.u32());
  if (port > 65535) return Error{"control frame has a bad port"};
  r.endpoint.port = static_cast<int>(port);
  r.label = TRY(b.str());
  std::uint64_t timeout = TRY(b.u64());
  if (timeout != kNoTimeout) r.connect_timeout_ms = timeout;
  r.path = TRY(b.str());
  TRY(b.end());
  if (r.endpoint.host.empty()) return Error{"control frame names no host"};
  return r;
}

std::string encode_exec(const ExecStart& e) {
  std::string body;
  put_str(body, e.command);
  put_u32(body, static_cast<std::uint32_t>(e.env.size()));
  for (const auto& [key, value] : e.env) {
    put_str(body, key);
    put_str(body, value);
  }
  put_u64(body, e.timeout_ms);
  body.push_back(e.has_input ? 1 : 0);
  return encode(Type::exec, body);
}

Result<ExecStart> decode_exec(std::string_view body) {
  if (body.empty()) return Error{"control frame cut short"};
  char has_input = body.back();
  if (has_input != 0 && has_input != 1) return Error{"control frame has a bad flag"};
  Body b(body.substr(0, body.size() - 1));
  ExecStart e;
  e.command = TRY(b.str());
  std::uint32_t n = TRY(b.u32());
  if (n > body.size() / 8) return Error{"control frame has a bad count"};
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string key(TRY(b.str()));
    std::string value(TRY(b.str()));
    e.env.emplace_back(std::move(key), std::move(value));
  }
  e.timeout_ms = TRY(b.u64());
  TRY(b.end());
  e.has_input = has_input == 1;
  return e;
}

std::string encode_output(Stream stream, std::string_view bytes) {
  std::string body;
  body.reserve(1 + bytes.size());
  body.push_back(stream == Stream::out ? 1 : 2);
  body.append(bytes);
  return encode(Type::output, body);
}

Result<std::pair<Stream, std::string_view>> decode_output(std::string_view body) {
  if (body.empty() || (body[0] != 1 && body[0] != 2))
    return Error{"control frame has a bad stream"};
  return std::pair{body[0] == 1 ? Stream::out : Stream::err, body.substr(1)};
}

std::string encode_u64(Type type, std::uint64_t n) {
  std::string body;
  put_u64(body, n);
  return encode(type, body);
}

Result<std::uint64_t> decode_u64(std::string_view body) {
  Body b(body);
  std::uint64_t n = TRY(b.u64());
  TRY(b.end());
  return n;
}

std::string encode_result(Type type, const HostResult& r) {
  std::string body;
  put_u32(body, static_cast<std::uint32_t>(r.exit_status));
  put_str(body, r.signal);
  put_u32(body, static_cast<std::uint32_t>(r.failure));
  put_str(body, r.error);
  return encode(type, body);
}

Result<HostResult> decode_result(std::string_view body) {
  Body b(body);
  HostResult r;
  std::uint32_t status = TRY(b.u32());
  if (status > 255) return Error{"control frame has a bad exit status"};
  r.exit_status = static_cast<int>(status);
  r.signal = TRY(b.str());
  std::uint32_t failure = TRY(b.u32());
  if (failure > static_cast<std::uint32_t>(Failure::local))
    return Error{"control frame has a bad failure"};
  r.failure = static_cast<Failure>(failure);
  r.error = TRY(b.str());
  TRY(b.end());
  if (r.signal.size() > 32 || r.error.size() > 4096 || r.error.find('\n') != std::string::npos ||
      r.signal.find('\n') != std::string::npos)
    return Error{"control frame has a bad result"};
  return r;
}

std::string encode_opened(bool reached_over_tcp) {
  return encode(Type::opened, std::string(1, reached_over_tcp ? 1 : 0));
}

Result<bool> decode_opened(std::string_view body) {
  if (body.empty()) return false;
  if (body.size() != 1 || (body[0] != 0 && body[0] != 1))
    return Error{"control frame has a bad flag"};
  return body[0] == 1;
}

Result<std::optional<Frame>> FrameParser::next() {
  if (held() < 4) return std::optional<Frame>{};
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = n << 8 | static_cast<unsigned char>(buffer_[at_ + i]);
  if (n == 0 || n > kMaxFrame + 1) return Error{"control frame of a bad length"};
  if (held() < 4 + n) return std::optional<Frame>{};
  auto type = static_cast<unsigned char>(buffer_[at_ + 4]);
  bool known = (type >= 1 && type <= static_cast<unsigned>(Type::exit)) ||
               (type >= 64 && type <= static_cast<unsigned>(Type::pid));
  if (!known) return Error{"control frame of an unknown type"};
  Frame frame{static_cast<Type>(type), buffer_.substr(at_ + 5, n - 1)};
  at_ += 4 + n;
  if (at_ > buffer_.size() / 2) {  // drop what was parsed, not on every frame
    buffer_.erase(0, at_);
    at_ = 0;
  }
  return std::optional<Frame>{std::move(frame)};
}

}  // namespace pdx::mux
