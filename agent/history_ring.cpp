#include "agent/history_ring.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pdx {

namespace {

// An unlinked file in $TMPDIR, else /tmp; none when neither takes one.
Fd temporary_file() {
  for (const char* dir : {static_cast<const char*>(std::getenv("TMPDIR")), "/tmp"}) {
    if (!dir || !*dir) continue;
    std::string name = std::string(dir) + "/.pdx-history-XXXXXX";
    int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) continue;
    ::unlink(name.c_str());
    return Fd(fd);
  }
  return Fd();
}

Fd ring_file() {
  int fd = ::memfd_create("pdx-relay-history", MFD_CLOEXEC);
  return fd >= 0 ? Fd(fd) : temporary_file();
}

// `io` (pread or pwrite of fd at an offset) over all of `n` bytes from `at`, retried where it
// does part; false when it fails or ends short.
template <typename Io>
bool all_of(Io io, std::size_t n, std::uint64_t at) {
  for (std::size_t done = 0; done < n;) {
    ssize_t now = io(done, n - done, off_t(at + done));
    if (now < 0 && errno == EINTR) continue;
    if (now <= 0) return false;
    done += std::size_t(now);
  }
  return true;
}

bool pwrite_all(int fd, const char* data, std::size_t n, std::uint64_t at) {
  return all_of([&](std::size_t done, std::size_t left,
                    off_t where) { return ::pwrite(fd, data + done, left, where); },
                n, at);
}

bool pread_all(int fd, char* data, std::size_t n, std::uint64_t at) {
  return all_of([&](std::size_t done, std::size_t left,
                    off_t where) { return ::pread(fd, data + done, left, where); },
                n, at);
}

}  // namespace

HistoryRing::HistoryRing(std::uint64_t capacity) : capacity_(capacity), fd_(ring_file()) {}

void HistoryRing::write(std::uint64_t offset, std::string_view bytes) {
  // The ring's two pieces: from the offset's place to the ring's end, then from its start.
  std::uint64_t at = offset % capacity_;
  std::size_t first = std::size_t(std::min<std::uint64_t>(bytes.size(), capacity_ - at));
  bool whole;
  if (fd_) {
    whole = pwrite_all(fd_.get(), bytes.data(), first, at) &&
            pwrite_all(fd_.get(), bytes.data() + first, bytes.size() - first, 0);
  } else {
    if (memory_.empty()) memory_.resize(capacity_);
    std::memcpy(memory_.data() + at, bytes.data(), first);
    std::memcpy(memory_.data(), bytes.data() + first, bytes.size() - first);
    whole = true;
  }
  if (!whole) kept_from_ = offset + bytes.size();
}

std::string HistoryRing::read(std::uint64_t offset, std::size_t n) const {
  std::string bytes(n, '\0');
  std::uint64_t at = offset % capacity_;
  std::size_t first = std::size_t(std::min<std::uint64_t>(n, capacity_ - at));
  if (fd_) {
    if (!pread_all(fd_.get(), bytes.data(), first, at) ||
        !pread_all(fd_.get(), bytes.data() + first, n - first, 0))
      return {};
  } else {
    if (memory_.empty()) return {};
    std::memcpy(bytes.data(), memory_.data() + at, first);
    std::memcpy(bytes.data() + first, memory_.data(), n - first);
  }
  return bytes;
}

}  // namespace pdx
