#pragma once
// The SSH wire encoding (RFC 4251 section 5): uint32 big-endian, and strings as a uint32 length
// then the bytes. Used for key files and for ssh-agent's protocol.
#include <cstdint>
#include <string>
#include <string_view>

namespace pdx {

/// Reads from a buffer it does not own; each read is false (and consumes nothing useful) when
/// the data ends early.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  bool byte(unsigned char& v) {
    if (data_.empty()) return false;
    v = static_cast<unsigned char>(data_.front());
    data_.remove_prefix(1);
    return true;
  }
  bool u32(std::uint32_t& v) {
    if (data_.size() < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(data_[i]);
    data_.remove_prefix(4);
    return true;
  }
  bool string(std::string_view& s) {
    std::uint32_t len;
    if (!u32(len) || len > data_.size()) return false;
    s = data_.substr(0, len);
    data_.remove_prefix(len);
    return true;
  }

 private:
  std::string_view data_;
};

inline void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

inline void put_string(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

}  // namespace pdx
