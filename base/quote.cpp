#include "base/quote.h"

#include <algorithm>

namespace pdx {

namespace {

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_quote(std::string_view s) {
  if (!s.empty() && std::all_of(s.begin(), s.end(), is_plain)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 2);
  out += '\'';
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

}  // namespace pdx
