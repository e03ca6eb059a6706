#include "distribute/pull/host_directory.h"

namespace pdx {

namespace {

bool kept(char c, bool first) {
  if (c >= 'a' && c <= 'z') return true;
  if (c >= 'A' && c <= 'Z') return true;
  if (c >= '0' && c <= '9') return true;
  if (c == '.') return !first;
  return c == '_' || c == '-' || c == '@' || c == '+';
}

}  // namespace

std::string host_directory(std::string_view label) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string name;
  for (std::size_t i = 0; i < label.size(); ++i) {
    char c = label[i];
    if (kept(c, i == 0)) {
      name += c;
      continue;
    }
    auto byte = static_cast<unsigned char>(c);
    name += '%';
    name += kHex[byte >> 4];
    name += kHex[byte & 15];
  }
  return name;
}

}  // namespace pdx
