#include "archive/unpack_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace pdx {

namespace {

Error errno_error(const char* what, int error = errno) {
  return Error{std::string(what) + ": " + std::strerror(error)};
}

}  // namespace

Hiding hiding_in(int dir) {
  int fd = ::openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return Hiding::temp_name;
  // "." always exists: EEXIST says the kernel took the descriptor as what to link, and failed
  // only at the new name.
  bool linkable = ::linkat(fd, "", dir, ".", AT_EMPTY_PATH) != 0 && errno == EEXIST;
  ::close(fd);
  return linkable ? Hiding::unnamed : Hiding::temp_name;
}

Hiding HidingByFilesystem::in(int dir) {
  struct stat st;
  if (::fstat(dir, &st) != 0) return hiding_in(dir);
  if (!known_ || st.st_dev != device_) {
    hiding_ = hiding_in(dir);
    device_ = st.st_dev;
    known_ = true;
  }
  return hiding_;
}

Result<UnpackFile> UnpackFile::create(int dir, const std::string& name, std::string temp_name,
                                      mode_t mode, Hiding hiding) {
  if (hiding == Hiding::unnamed) {
    int fd = ::openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd >= 0) return UnpackFile(dir, name, std::move(temp_name), false, fd);
  }
  int fd =
      ::openat(dir, temp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return Error{std::strerror(errno)};
  return UnpackFile(dir, name, std::move(temp_name), true, fd);
}

UnpackFile::UnpackFile(UnpackFile&& other) noexcept
    : dir_(other.dir_),
      name_(std::move(other.name_)),
      temp_name_(std::move(other.temp_name_)),
      under_temp_name_(std::exchange(other.under_temp_name_, false)),
      fd_(std::exchange(other.fd_, -1)),
      position_(other.position_) {}

UnpackFile::~UnpackFile() {
  if (fd_ >= 0) ::close(fd_);
  if (under_temp_name_) ::unlinkat(dir_, temp_name_.c_str(), 0);
}

Result<void> UnpackFile::write(std::span<const char> data, std::int64_t offset) {
  constexpr std::int64_t kChunk = 4096;
  auto zeros = [](std::span<const char> part) {
    return part[0] == 0 && std::memcmp(part.data(), part.data() + 1, part.size() - 1) == 0;
  };
  // The part of `rest` up to the next chunk boundary.
  auto chunk = [](std::span<const char> rest, std::int64_t at) {
    return rest.first(std::min(rest.size(), static_cast<std::size_t>(kChunk - at % kChunk)));
  };
  while (!data.empty()) {
    // A run of whole chunks that are not all zeros, or one that is (skipped).
    std::size_t run = 0;
    for (std::size_t next; run < data.size(); run += next) {
      auto part = chunk(data.subspan(run), offset + static_cast<std::int64_t>(run));
      next = part.size();
      if (zeros(part)) break;
    }
    if (run == 0) {
      run = chunk(data, offset).size();
    } else {
      if (offset != position_ && ::lseek(fd_, offset, SEEK_SET) < 0) {
        return errno_error("cannot write");
      }
      for (std::size_t done = 0; done < run;) {
        ssize_t n = ::write(fd_, data.data() + done, run - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno_error("cannot write");
        done += static_cast<std::size_t>(n);
      }
      position_ = offset + static_cast<std::int64_t>(run);
    }
    data = data.subspan(run);
    offset += static_cast<std::int64_t>(run);
  }
  return {};
}

Result<void> UnpackFile::extend_to(std::int64_t size) {
  if (size > position_ && ::ftruncate(fd_, size) != 0) return errno_error("cannot write");
  return {};
}

Result<void> UnpackFile::commit() {
  if (!under_temp_name_) {
    if (::linkat(fd_, "", dir_, name_.c_str(), AT_EMPTY_PATH) == 0) {
      if (::close(std::exchange(fd_, -1)) == 0) return {};
      int error = errno;
      ::unlinkat(dir_, name_.c_str(), 0);
      return errno_error("cannot write", error);
    }
    if (errno != EEXIST) return errno_error("cannot put in place");
    // Something has the name already: name the file out of sight, then rename it over that.
    if (::linkat(fd_, "", dir_, temp_name_.c_str(), AT_EMPTY_PATH) != 0) {
      return errno_error("cannot put in place");
    }
    under_temp_name_ = true;
  }
  auto failed = [this](const char* what) {
    Error error = errno_error(what);
    ::unlinkat(dir_, temp_name_.c_str(), 0);
    under_temp_name_ = false;
    return error;
  };
  if (::close(std::exchange(fd_, -1)) != 0) return failed("cannot write");
  if (::renameat(dir_, temp_name_.c_str(), dir_, name_.c_str()) != 0) {
    return failed("cannot put in place");
  }
  under_temp_name_ = false;
  return {};
}

}  // namespace pdx
