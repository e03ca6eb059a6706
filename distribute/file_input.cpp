#include "distribute/file_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pdx {

InputPiece FileInput::next() {
  if (taken_ < buffer_.size())
    return {InputPiece::State::data, std::string_view(buffer_).substr(taken_), {}};
  if (ended_) return {InputPiece::State::end, {}, {}};
  buffer_.resize(kChunk);
  taken_ = 0;
  ssize_t n;
  do n = ::pread(fd_, buffer_.data(), buffer_.size(), static_cast<off_t>(offset_));
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    buffer_.clear();
    ended_ = true;
    return {InputPiece::State::failed, {}, std::string("read: ") + std::strerror(errno)};
  }
  buffer_.resize(static_cast<std::size_t>(n));
  offset_ += static_cast<std::uint64_t>(n);
  if (n == 0) {
    ended_ = true;
    return {InputPiece::State::end, {}, {}};
  }
  return {InputPiece::State::data, buffer_, {}};
}

}  // namespace pdx
