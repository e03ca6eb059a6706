#pragma once
// Bytes behind a file descriptor (an unnamed memory file), for the delta engine's tests.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "base/fd.h"

namespace pdx::test {

inline Fd memory_file(const std::string& bytes) {
  Fd fd(::memfd_create("delta-test", MFD_CLOEXEC));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

}  // namespace pdx::test
