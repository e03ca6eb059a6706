#include "archive/temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/umask.h"

namespace pdx {

namespace {

std::string errno_message(const std::string& name, const char* what) {
  return name + ": " + what + ": " + std::strerror(errno);
}

// Permissions a new file gets from the umask, as if created with open(..., 0666).
mode_t default_file_mode() {
  return 0666 & ~process_umask();
}

}  // namespace

Result<void> write_all(int fd, const void* data, std::size_t size, const std::string& name) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{errno_message(name, "write failed")};
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return {};
}

Result<TempFile> TempFile::create(const std::string& final_name) {
  std::filesystem::path path(final_name);
  std::string temp =
      (path.parent_path() / ("." + path.filename().string() + ".pdx-XXXXXX")).string();
  std::vector<char> buf(temp.begin(), temp.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  if (fd < 0) return Error{errno_message(final_name, "cannot create")};
  fchmod(fd, default_file_mode());  // mkstemp makes 0600; the final file gets the usual mode
  return TempFile(final_name, buf.data(), fd);
}

TempFile::TempFile(TempFile&& other) noexcept
    : final_name_(std::move(other.final_name_)),
      temp_name_(std::move(other.temp_name_)),
      fd_(other.fd_) {
  other.fd_ = -1;
  other.temp_name_.clear();
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_name_.empty()) ::unlink(temp_name_.c_str());
}

Result<void> TempFile::write(const void* data, std::size_t size) {
  return write_all(fd_, data, size, final_name_);
}

Result<void> TempFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  auto n = ::pwrite(fd_, data, size, static_cast<off_t>(offset));
  if (n != static_cast<ssize_t>(size)) return Error{errno_message(final_name_, "write failed")};
  return {};
}

Result<void> TempFile::close() {
  int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && ::close(fd) != 0) return Error{errno_message(final_name_, "write failed")};
  return {};
}

Result<void> TempFile::commit() {
  TRY(close());
  if (::rename(temp_name_.c_str(), final_name_.c_str()) != 0) {
    return Error{errno_message(final_name_, "cannot rename into place")};
  }
  temp_name_.clear();
  return {};
}

}  // namespace pdx
