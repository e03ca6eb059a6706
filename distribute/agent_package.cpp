#include "distribute/agent_package.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "archive/compressor.h"
#include "archive/open_output.h"
#include "base/fd.h"

extern char** environ;

namespace pdx {

namespace {

namespace fs = std::filesystem;

// Other binaries' copies kept however many builds a day makes (a developer's), the ones used
// last.
constexpr std::size_t kKeptOthers = 4;

// Removes the copies named *SUFFIX of other binaries from `cache` that no pdx is likely to be
// sending now (another pdx, a second build or the old version still running may be sending its
// own): those not used for a day, and beyond the kKeptOthers used last, those not used for an
// hour; never temporaries (".NAME.pdx-XXXXXX": another pdx's copy under way).
void drop_others(const std::string& cache, std::string_view keep, std::string_view suffix,
                 std::string_view also = "") {
  std::error_code error;
  std::vector<std::pair<fs::file_time_type, fs::path>> others;
  for (const auto& entry : fs::directory_iterator(cache, error)) {
    std::string name = entry.path().filename();
    if (name.starts_with(".") || !name.ends_with(suffix) || name.starts_with(keep) ||
        (!also.empty() && name.starts_with(also)))
      continue;
    auto used = fs::last_write_time(entry.path(), error);
    if (!error) others.emplace_back(used, entry.path());
  }
  std::sort(others.begin(), others.end(), std::greater<>());  // used last first
  auto now = fs::file_time_type::clock::now();
  for (std::size_t i = 0; i < others.size(); ++i) {
    auto unused = now - others[i].first;
    if (unused > std::chrono::hours(24) || (i >= kKeptOthers && unused > std::chrono::hours(1)))
      fs::remove(others[i].second, error);
  }
}

// A copy found in the cache, marked used now (its mtime), so that drop_others keeps it.
std::string used(const std::string& copy) {
  ::utimensat(AT_FDCWD, copy.c_str(), nullptr, 0);
  return copy;
}

// Makes `cache` (~/.cache/pdx/sent), ~/.cache/pdx 0755 if made here: a home shared with the hosts
// (NFS) has the hosts' agents there, which do not run from a directory others may write.
bool make_cache(const std::string& cache) {
  if (cache.empty()) return false;
  std::error_code error;
  std::string parent = fs::path(cache).parent_path();
  bool had = fs::exists(parent, error);
  fs::create_directories(cache, error);
  if (!had) ::chmod(parent.c_str(), 0755);
  return fs::is_directory(cache, error);
}

// Runs argv (the first one looked up on PATH) without a shell; whether it exited 0.
bool run(std::vector<std::string> argv) {
  std::vector<char*> args;
  for (auto& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  int status;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string local_agent_cache() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return "";
  return std::string(home) + "/.cache/pdx/sent";
}

std::optional<std::string> stripped_copy(const std::string& path, const std::string& cache) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !make_cache(cache)) return std::nullopt;
  std::string key = std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec) + "." +
                    std::to_string(st.st_mtim.tv_nsec) + "-" + std::to_string(st.st_ino);
  std::string copy = cache + "/" + key + ".stripped";
  if (::access(copy.c_str(), R_OK) == 0) return used(copy);
  drop_others(cache, key, ".stripped");
  std::string temp = cache + "/." + key + ".stripped.pdx-XXXXXX";
  Fd made(::mkstemp(temp.data()));
  if (!made) return std::nullopt;
  made.reset();
  bool stripped = run({"objcopy", "--strip-all", path, temp}) && ::chmod(temp.c_str(), 0755) == 0 &&
                  ::rename(temp.c_str(), copy.c_str()) == 0;
  if (!stripped) ::unlink(temp.c_str());
  return stripped ? std::optional(copy) : std::nullopt;
}

std::optional<std::string> gzipped_copy(const std::string& path, const std::string& sha256,
                                        const std::string& cache, std::string_view keep) {
  std::string copy = cache + "/" + sha256 + ".gz";
  if (!make_cache(cache)) return std::nullopt;
  if (::access(copy.c_str(), R_OK) == 0) return used(copy);
  drop_others(cache, sha256, ".gz", keep);
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  auto file = open_output({copy, std::nullopt, 1, Overwrite::yes, Checksum::none});
  if (!in || !file) return std::nullopt;
  // gzip's default level on every core: a binary with its symbols (no objcopy) is 100 MB.
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto gzip = compressing_sink({Codec::gzip, std::nullopt, threads}, **file);
  if (!gzip) return std::nullopt;
  std::string buffer(1 << 20, '\0');
  for (;;) {
    ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    if (!(*gzip)->write(buffer.data(), static_cast<std::size_t>(n))) return std::nullopt;
  }
  if (!(*gzip)->finish()) return std::nullopt;
  return copy;
}

}  // namespace pdx
