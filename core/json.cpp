#include "core/json.h"

#include <cstdio>
#include <utility>

namespace pdx {

namespace {

// Lead byte c: how long its sequence is (0: not a lead byte).
std::size_t expected_length(unsigned char c) {
  return c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t n = expected_length(c);
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  unsigned char c1 = byte(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) ||
      (c == 0xF4 && c1 >= 0x90))
    return 0;  // overlong, surrogate, or past U+10FFFF
  return n;
}

}  // namespace

std::string json_string(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  JsonEscaper escaper;
  escaper.escape(s, out);
  escaper.finish(out);
  out += '"';
  return out;
}

void JsonEscaper::escape(std::string_view piece, std::string& out) {
  if (held_.empty()) return escape_from(piece, out, false);
  std::string joined = std::exchange(held_, {});
  joined.append(piece);
  escape_from(joined, out, false);
}

void JsonEscaper::finish(std::string& out) {
  escape_from(std::exchange(held_, {}), out, true);
}

// Unless `last`, a sequence cut short by the end of `s` is held for the next piece.
void JsonEscaper::escape_from(std::string_view s, std::string& out, bool last) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (!last && i + expected_length(c) > s.size()) {
        held_ = s.substr(i);
        return;
      }
      std::size_t n = utf8_length(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";
      } else {
        out.append(s.substr(i, n));
        i += n - 1;
      }
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
}

}  // namespace pdx
