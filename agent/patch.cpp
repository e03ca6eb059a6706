#include "agent/patch.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pdx {

namespace {
constexpr std::size_t kCopyRead = 1024 * 1024;
}  // namespace

Patcher::Patcher(int basis, std::uint64_t basis_size, std::uint32_t block, Write write)
    : basis_(basis), basis_size_(basis_size), block_(block), write_(std::move(write)) {}

Result<void> Patcher::copy(std::uint64_t first, std::uint64_t count) {
  std::uint64_t blocks = block_count(basis_size_, block_);
  if (count == 0 || first >= blocks || count > blocks - first)
    return Error{"a copy past the old file's end", ErrorKind::bad_input};
  std::uint64_t offset = first * block_;
  std::uint64_t end = std::min(basis_size_, (first + count) * block_);
  buffer_.resize(kCopyRead);
  while (offset < end) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kCopyRead, end - offset));
    ssize_t n = ::pread(basis_, buffer_.data(), want, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read the old file: ") + std::strerror(errno)};
    if (n == 0) return Error{"the old file changed (shorter)"};
    TRY(emit(std::string_view(buffer_.data(), static_cast<std::size_t>(n))));
    offset += static_cast<std::uint64_t>(n);
  }
  return {};
}

Result<void> Patcher::literal(std::string_view bytes) {
  return emit(bytes);
}

Result<void> Patcher::emit(std::string_view bytes) {
  hash_.update(bytes.data(), bytes.size());
  size_ += bytes.size();
  return write_(bytes);
}

}  // namespace pdx
