#include "agent/frame_limits.h"

#include <algorithm>
#include <string>

namespace pdx {

Result<void> check_name(std::string_view name) {
  auto refuse = [&](const char* why) {
    std::string shown(name.substr(0, 200));
    std::replace(shown.begin(), shown.end(), '\0', '?');
    return Error{"unsafe name '" + shown + "': " + why, ErrorKind::bad_input};
  };
  if (name.empty()) return {};
  if (name.size() > kMaxName) return refuse("too long");
  if (name.find('\0') != std::string_view::npos) return refuse("holds a NUL byte");
  if (name.front() == '/') return refuse("absolute");
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = std::min(name.find('/', start), name.size());
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == ".") return refuse("empty or '.' component");
    if (part == "..") return refuse("'..' component");
    start = end + 1;
  }
  return {};
}

Result<void> check_target(std::string_view target) {
  if (target.empty()) return Error{"empty symlink target", ErrorKind::bad_input};
  if (target.size() > kMaxName) return Error{"symlink target too long", ErrorKind::bad_input};
  if (target.find('\0') != std::string_view::npos)
    return Error{"symlink target holds a NUL byte", ErrorKind::bad_input};
  return {};
}

}  // namespace pdx
