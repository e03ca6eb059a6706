#include "base/read_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/fd.h"

namespace pdx {
namespace {

std::string too_big(std::size_t max) {
  constexpr std::size_t kMiB = 1 << 20;
  return "over " +
         (max % kMiB ? std::to_string(max) + " bytes" : std::to_string(max / kMiB) + " MiB");
}

// Whether a character device reads empty, as /dev/null does (OpenSSH reads it so, e.g. for
// UserKnownHostsFile /dev/null): asked without waiting, since a terminal would block; /dev/zero
// has a byte at once.
bool reads_empty(int fd) {
  pollfd p{fd, POLLIN, 0};
  int ready;
  while ((ready = ::poll(&p, 1, 0)) < 0 && errno == EINTR) {
  }
  if (ready != 1 || !(p.revents & (POLLIN | POLLHUP))) return false;
  char probe;
  ssize_t n;
  while ((n = ::read(fd, &probe, 1)) < 0 && errno == EINTR) {
  }
  return n == 0;
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, IfMissing missing, std::size_t max) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd && errno == ENOENT && missing == IfMissing::empty) return std::string();
  if (!fd) return Error{std::strerror(errno)};
  return read_text_fd(fd.get(), max);
}

Result<std::string> read_text_fd(int fd, std::size_t max) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{std::strerror(errno)};
  if (S_ISDIR(st.st_mode)) return Error{"is a directory"};
  if (S_ISCHR(st.st_mode) && reads_empty(fd)) return std::string();
  if (!S_ISREG(st.st_mode)) return Error{"not a regular file"};
  if (static_cast<std::size_t>(st.st_size) > max) return Error{too_big(max)};
  // Sized once: a file that grew meanwhile is read on, still within `max`, but the common
  // case never moves the buffer.
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  for (;;) {
    char probe;
    bool full = got == text.size();
    ssize_t n = full ? ::pread(fd, &probe, 1, static_cast<off_t>(got))
                     : ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::strerror(errno)};
    if (n == 0) break;
    if (full) {
      if (text.size() >= max) return Error{too_big(max)};
      text.resize(std::min(max, std::max<std::size_t>(text.size() * 2, 4096)));
      text[got] = probe;
    }
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);  // shrinking keeps the buffer
  return text;
}

}  // namespace pdx
