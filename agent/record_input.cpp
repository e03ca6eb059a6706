#include "agent/record_input.h"

#include <algorithm>
#include <cstring>

namespace pdx {

Result<bool> RecordInput::fill() {
  while (held_.empty()) {
    if (broke_) return *broke_;
    if (ended_) return false;
    auto record = next_(buffer_);
    if (!record) {
      broke_ = Error{record.error(), record.error_kind()};
      return *broke_;
    }
    ended_ = record->empty();
    held_ = *record;
  }
  return true;
}

Result<std::size_t> RecordInput::read(char* to, std::size_t size) {
  if (!TRY(fill())) return std::size_t(0);
  std::size_t n = std::min(size, held_.size());
  std::memcpy(to, held_.data(), n);
  held_.remove_prefix(n);
  return n;
}

Result<void> RecordInput::drain() {
  for (held_ = {}; TRY(fill()); held_ = {}) {
  }
  return {};
}

}  // namespace pdx
