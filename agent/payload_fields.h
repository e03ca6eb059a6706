#pragma once
// The fields of a frame's payload (agent/agent_protocol.h and the frames built on it):
// big-endian integers and length-prefixed strings, written by PayloadWriter and read back by
// PayloadReader, which trusts nothing it reads.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "agent/frame_limits.h"
#include "base/result.h"

namespace pdx {

inline void put_uint(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline std::uint64_t get_uint(std::string_view bytes) {
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// Appends fields to a payload.
class PayloadWriter {
 public:
  PayloadWriter& u8(std::uint8_t v) { return put(v, 1); }
  PayloadWriter& u32(std::uint32_t v) { return put(v, 4); }
  PayloadWriter& u64(std::uint64_t v) { return put(v, 8); }
  PayloadWriter& i64(std::int64_t v) { return put(static_cast<std::uint64_t>(v), 8); }
  PayloadWriter& str(std::string_view s) {
    put(s.size(), 4);
    out_.append(s);
    return *this;
  }
  PayloadWriter& raw(const void* data, std::size_t n) {
    out_.append(static_cast<const char*>(data), n);
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  PayloadWriter& put(std::uint64_t v, int bytes) {
    put_uint(out_, v, bytes);
    return *this;
  }
  std::string out_;
};

enum class Digest { required, optional };

// Reads fields from an untrusted payload: each read checks there are enough bytes and what the
// field may hold; the first failure sticks, and end() fails unless every byte was read.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view payload, const char* what) : in_(payload), what_(what) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(take(4)); }
  std::uint64_t u64() { return take(8); }
  std::int64_t i64() { return static_cast<std::int64_t>(take(8)); }
  std::uint32_t mode() { return u32() & 07777; }
  /// A name under the destination (check_name): an unsafe one is end()'s Error.
  std::string name() {
    std::string s = str(kMaxName);
    if (auto checked = check_name(s); !checked && !name_error_) name_error_ = checked.error();
    return s;
  }
  /// A SHA-256 as 64 lower-case hex digits; "" too when `Digest::optional`.
  std::string sha256(Digest digest) { return hex_digest(64, digest); }
  /// An XXH3-128 (hash/xxh3.h) as 32 lower-case hex digits; "" too when `Digest::optional`.
  std::string xxh3(Digest digest) { return hex_digest(32, digest); }
  /// A byte that must be one of `allowed`.
  template <class Enum>
  Enum one_of(std::initializer_list<Enum> allowed) {
    auto v = u8();
    if (std::none_of(allowed.begin(), allowed.end(),
                     [v](Enum e) { return static_cast<std::uint8_t>(e) == v; }))
      ok_ = false;
    return static_cast<Enum>(v);
  }
  /// `n` bytes as they are.
  std::string_view bytes(std::size_t n) {
    if (!ok_ || in_.size() < n) {
      ok_ = false;
      return {};
    }
    std::string_view b = in_.substr(0, n);
    in_.remove_prefix(n);
    return b;
  }
  bool empty() const { return in_.empty(); }
  bool ok() const { return ok_ && !name_error_; }
  /// A field was read but is not what it may be: end() fails.
  void bad() { ok_ = false; }
  Error error() const {
    return Error{std::string("malformed ") + what_ + " frame", ErrorKind::bad_input};
  }
  std::string hex_digest(std::size_t digits, Digest digest) {
    std::string s = str(digits);
    bool absent = s.empty() && digest == Digest::optional;
    if (!absent &&
        (s.size() != digits || s.find_first_not_of("0123456789abcdef") != std::string::npos))
      ok_ = false;
    return s;
  }
  std::string str(std::size_t max) {
    std::uint64_t n = take(4);
    if (!ok_ || n > max || n > in_.size()) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  Result<void> end() const {
    if (!ok_ || !in_.empty())
      return Error{std::string("malformed ") + what_ + " frame", ErrorKind::bad_input};
    if (name_error_) return Error{*name_error_, ErrorKind::bad_input};
    return {};
  }

 private:
  std::uint64_t take(std::size_t n) {
    if (!ok_ || in_.size() < n) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = get_uint(in_.substr(0, n));
    in_.remove_prefix(n);
    return v;
  }
  std::string_view in_;
  const char* what_;
  bool ok_ = true;
  std::optional<std::string> name_error_;
};

// A message whose fields `read` takes from a PayloadReader, in order (braced initialisation reads
// them left to right): an Error unless every byte of the payload was one of them and each was
// valid.
template <class Message, class Read>
Result<Message> decode_fields(std::string_view payload, const char* what, Read read) {
  PayloadReader r(payload, what);
  Message m = read(r);
  TRY(r.end());
  return m;
}

}  // namespace pdx
