#pragma once
// The little JSON pdx writes (--json): string escaping only.
#include <string>
#include <string_view>

namespace pdx {

/// `s` as a JSON string literal, quotes included. Valid UTF-8 passes through; control characters
/// are escaped; each byte that is not part of valid UTF-8 becomes U+FFFD, so the line is always
/// valid JSON even for binary output.
std::string json_string(std::string_view s);

/// The same escaping for a string given in pieces (quotes not included), so a long one need not
/// be held whole: a UTF-8 sequence split between two pieces is held (at most 3 bytes) until the
/// next piece completes it.
class JsonEscaper {
 public:
  /// Appends the escaped form of `piece` to `out`.
  void escape(std::string_view piece, std::string& out);
  /// The string ended: appends what is still held (an incomplete sequence: U+FFFD per byte).
  void finish(std::string& out);

 private:
  void escape_from(std::string_view s, std::string& out, bool last);
  std::string held_;
};

}  // namespace pdx
