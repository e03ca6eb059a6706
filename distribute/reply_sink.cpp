#include "distribute/reply_sink.h"

#include <algorithm>

namespace pdx {

void ReplySink::output(std::size_t, Stream stream, std::string_view bytes) {
  Reply& r = reply_;
  if (stream == Stream::err) {
    r.err.append(bytes);
    if (r.err.size() > kMaxStderr) r.err.erase(0, r.err.size() - kMaxStderr);
    return;
  }
  if (r.out.size() + bytes.size() > kMaxReply) {
    r.overflow = true;
    return;
  }
  r.out.append(bytes);
}

std::string last_line(const std::string& err) {
  std::string_view text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  auto newline = text.rfind('\n');
  std::string line(newline == std::string_view::npos ? text : text.substr(newline + 1));
  std::replace_if(
      line.begin(), line.end(),
      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
  return line;
}

}  // namespace pdx
