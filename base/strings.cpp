#include "base/strings.h"

namespace pdx {

std::string_view trim(std::string_view s) {
  auto first = s.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlanks) - first + 1);
}

std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while ((pos = s.find_first_not_of(kBlanks, pos)) != std::string_view::npos) {
    auto end = s.find_first_of(kBlanks, pos);
    if (end == std::string_view::npos) end = s.size();
    words.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return words;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  while (!s.empty()) {
    auto newline = s.find('\n');
    lines.push_back(s.substr(0, newline));
    s.remove_prefix(newline == std::string_view::npos ? s.size() : newline + 1);
  }
  return lines;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace pdx
