#include "core/held_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

namespace pdx {

namespace {

// pwrite/pread all of it, retrying short transfers and EINTR. 0 or errno.
int pwrite_all(int fd, std::string_view data, std::uint64_t offset) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    data.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return 0;
}

}  // namespace

SpillFile::SpillFile(std::size_t memory_budget) : memory_left_(memory_budget) {
  const char* tmpdir = std::getenv("TMPDIR");
  dir_ = tmpdir && *tmpdir ? tmpdir : "/tmp";
}

std::string SpillFile::name() const {
  return "a temporary file in " + dir_;
}

// O_TMPFILE: never has a name; else mkstemp and unlink at once. Made on the first spill only,
// so a run whose output fits in memory leaves no trace in $TMPDIR at all.
int SpillFile::open_once() {
  std::lock_guard lock(open_mutex_);
  if (fd_ || open_error_) return open_error_;
  fd_.reset(::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!fd_) {
    std::string pattern = dir_ + "/pdx-held.XXXXXX";
    std::vector<char> path(pattern.begin(), pattern.end());
    path.push_back('\0');
    fd_.reset(::mkostemp(path.data(), O_CLOEXEC));
    if (fd_) ::unlink(path.data());
  }
  if (!fd_) open_error_ = errno;
  return open_error_;
}

int SpillFile::append(std::string_view a, std::string_view b, std::uint64_t& offset) {
  if (int error = open_once()) return error;
  offset = end_.fetch_add(a.size() + b.size());
  if (int error = pwrite_all(fd_.get(), a, offset)) return error;
  return pwrite_all(fd_.get(), b, offset + a.size());
}

int SpillFile::read(std::uint64_t offset, char* into, std::size_t size) const {
  while (size > 0) {
    ssize_t n = ::pread(fd_.get(), into, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    into += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return 0;
}

void SpillFile::release(std::uint64_t offset, std::uint64_t length) {
  ::fallocate(fd_.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
              static_cast<off_t>(length));
}

bool SpillFile::take_memory(std::size_t n) {
  std::size_t left = memory_left_.load();
  do {
    if (left < n) return false;
  } while (!memory_left_.compare_exchange_weak(left, left - n));
  return true;
}

void SpillFile::give_memory(std::size_t n) {
  memory_left_ += n;
}

int HeldOutput::append(std::string_view bytes) {
  if (bytes.empty()) return 0;
  size_ += bytes.size();
  last_ = bytes.back();
  if (memory_.size() + bytes.size() <= kChunk && file_->take_memory(bytes.size())) {
    memory_.append(bytes);
    return 0;
  }
  std::uint64_t offset = 0;
  if (int error = file_->append(memory_, bytes, offset)) return error;  // the sink then fails
  std::uint64_t length = memory_.size() + bytes.size();
  if (!ranges_.empty() && ranges_.back().offset + ranges_.back().length == offset)
    ranges_.back().length += length;
  else
    ranges_.push_back({offset, length});
  file_->give_memory(memory_.size());
  std::string().swap(memory_);
  return 0;
}

int HeldOutput::for_each(const std::function<bool(std::string_view)>& each) const {
  std::string buf(ranges_.empty() ? 0 : kChunk, '\0');
  for (const Range& range : ranges_) {
    for (std::uint64_t done = 0; done < range.length;) {
      std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, range.length - done));
      if (int error = file_->read(range.offset + done, buf.data(), n)) return error;
      if (!each({buf.data(), n})) return 0;
      done += n;
    }
  }
  if (!memory_.empty()) each(memory_);
  return 0;
}

void HeldOutput::release() {
  for (const Range& range : ranges_) file_->release(range.offset, range.length);
  ranges_.clear();
  file_->give_memory(memory_.size());
  std::string().swap(memory_);
}

}  // namespace pdx
