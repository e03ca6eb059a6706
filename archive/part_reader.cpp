#include "archive/part_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace pdx {

namespace {

std::string errno_message(const std::string& name, const char* what) {
  return name + ": " + what + ": " + std::strerror(errno);
}

}  // namespace

PartReader::PartReader(std::vector<std::string> parts) {
  for (auto& name : parts) parts_.push_back({std::move(name), {}, 0, false});
}

PartReader::~PartReader() {
  if (fd_ > STDIN_FILENO) ::close(fd_);
}

Result<void> PartReader::check() {
  for (auto& part : parts_) {
    if (part.name == "-") continue;
    struct stat st;
    if (::stat(part.name.c_str(), &st) != 0)
      return Error{errno_message(part.name, "cannot read part"), ErrorKind::bad_input};
    if (S_ISDIR(st.st_mode)) {
      return Error{part.name + ": is a directory, not an archive or part", ErrorKind::bad_input};
    }
    if (::access(part.name.c_str(), R_OK) != 0) {
      return Error{errno_message(part.name, "cannot read part"), ErrorKind::bad_input};
    }
    part.regular = S_ISREG(st.st_mode);
    part.path = std::filesystem::absolute(part.name).string();  // the caller may chdir
    part.size = static_cast<std::uint64_t>(st.st_size);
  }
  return open_part(0);
}

std::uint64_t PartReader::total_size() const {
  std::uint64_t total = 0;
  for (const auto& part : parts_) {
    if (!part.regular) return 0;
    total += part.size;
  }
  return total;
}

Result<void> PartReader::open_part(std::size_t index) {
  if (fd_ > STDIN_FILENO) ::close(fd_);
  index_ = index;
  const std::string& name = parts_[index].name;
  fd_ = name == "-" ? STDIN_FILENO : ::open(parts_[index].path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return Error{errno_message(name, "cannot read part")};
  return {};
}

Result<std::size_t> PartReader::read(void* buffer, std::size_t size) {
  for (;;) {
    ssize_t n = ::read(fd_, buffer, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{errno_message(current_part(), "read failed")};
    }
    if (n > 0) {
      position_ += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
    if (index_ + 1 == parts_.size()) return std::size_t{0};
    TRY(open_part(index_ + 1));
  }
}

bool PartReader::seekable() const {
  return std::all_of(parts_.begin(), parts_.end(), [](const Part& p) { return p.regular; });
}

Result<std::uint64_t> PartReader::seek(std::int64_t offset, int whence) {
  std::int64_t target = offset;
  if (whence == SEEK_CUR) target += static_cast<std::int64_t>(position_);
  if (whence == SEEK_END) target += static_cast<std::int64_t>(total_size());
  if (target < 0 || !seekable()) return Error{current_part() + ": cannot seek"};
  // Find the part holding target; a target at or past the end stays in the last part.
  auto wanted = static_cast<std::uint64_t>(target);
  std::uint64_t start = 0;
  std::size_t index = 0;
  while (index + 1 < parts_.size() && wanted >= start + parts_[index].size) {
    start += parts_[index].size;
    ++index;
  }
  if (index != index_) {
    TRY(open_part(index));
  }
  if (::lseek(fd_, static_cast<off_t>(wanted - start), SEEK_SET) < 0) {
    return Error{errno_message(current_part(), "cannot seek")};
  }
  position_ = wanted;
  return wanted;
}

}  // namespace pdx
