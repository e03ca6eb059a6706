#include "agent/extract_leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pdx {

namespace {

const std::string kPrefix = ".extract.pdx-";

std::string this_host() {
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::optional<std::uint64_t> number(std::string_view digits) {
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return std::stoull(std::string(digits));
}

}  // namespace

std::optional<std::uint64_t> process_start(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  // "PID (COMM) STATE ..." with COMM any bytes: fields counted after the last ')'; the start time
  // is field 22, the 20th after it.
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 0; i < 20; ++i)
    if (!(fields >> field)) return std::nullopt;
  return number(field);
}

std::string hidden_name(std::uint64_t n) {
  // Without a start time (no /proc) the name holds 0, and no later agent takes it for gone.
  return kPrefix + this_host() + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(process_start(::getpid()).value_or(0)) + "-" + std::to_string(n);
}

bool owner_gone(std::string_view name) {
  if (!name.starts_with(kPrefix)) return false;
  name.remove_prefix(kPrefix.size());
  std::uint64_t fields[3];  // PID START N, from the end: HOST may hold '-'
  for (int i = 2; i >= 0; --i) {
    auto dash = name.rfind('-');
    if (dash == std::string_view::npos) return false;
    auto value = number(name.substr(dash + 1));
    if (!value) return false;
    fields[i] = *value;
    name.remove_suffix(name.size() - dash);
  }
  if (name != this_host() || fields[1] == 0 || fields[0] == 0 || fields[0] > 1u << 30) return false;
  auto pid = static_cast<pid_t>(fields[0]);
  auto start = process_start(pid);
  if (start) return *start != fields[1];
  // No /proc/PID/stat: gone, if the PID is free indeed (and /proc is there to say so).
  return ::kill(pid, 0) != 0 && errno == ESRCH && process_start(::getpid()).has_value();
}

std::vector<std::string> leftovers_in(int dest) {
  std::vector<std::string> names;
  int fd = ::openat(dest, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (fd >= 0) ::close(fd);
    return names;
  }
  while (const dirent* e = ::readdir(d))
    if (owner_gone(e->d_name)) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

}  // namespace pdx
