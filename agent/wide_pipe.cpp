#include "agent/wide_pipe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <mutex>
#include <set>

#include "agent/frame_limits.h"

namespace pdx {

namespace {

// The pipes this process holds open (any end): their inodes, from /proc/self/fd.
std::set<ino_t> open_pipes() {
  std::set<ino_t> pipes;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return pipes;
  while (const dirent* entry = ::readdir(dir)) {
    char target[64];
    ssize_t n = ::readlinkat(::dirfd(dir), entry->d_name, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    unsigned long long inode = 0;
    if (std::sscanf(target, "pipe:[%llu]", &inode) == 1) pipes.insert(static_cast<ino_t>(inode));
  }
  ::closedir(dir);
  return pipes;
}

std::mutex widened_mutex;
std::set<ino_t> widened;  // the pipes widen_pipe widened, while open (under widened_mutex)

}  // namespace

std::size_t wide_pipes_at_most() {
  static const std::size_t at_most = [] {
    unsigned long long pages = 16384;  // Linux's default, where /proc cannot say
    if (std::FILE* f = std::fopen("/proc/sys/fs/pipe-user-pages-soft", "re")) {
      if (std::fscanf(f, "%llu", &pages) != 1) pages = 16384;
      std::fclose(f);
    }
    if (pages == 0) return std::numeric_limits<std::size_t>::max();
    auto bytes = pages * static_cast<unsigned long long>(::sysconf(_SC_PAGESIZE));
    return std::max<std::size_t>(static_cast<std::size_t>(bytes / 4 / kDataChunk), 1);
  }();
  return at_most;
}

void widen_pipe(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  std::lock_guard lock(widened_mutex);
  if (!widened.contains(st.st_ino)) {
    std::set<ino_t> open = open_pipes();
    std::erase_if(widened, [&](ino_t pipe) { return !open.contains(pipe); });
    if (widened.size() >= wide_pipes_at_most()) return;
  }
  if (::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(kDataChunk)) >= 0) widened.insert(st.st_ino);
}

}  // namespace pdx
