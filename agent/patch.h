#pragma once
// The receiving end of a delta (agent/delta.h): a new file rebuilt from the ops, blocks
// read from the old file, the bytes written out in order and hashed on the way.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/delta.h"

namespace pdx {

class Patcher final : public DeltaSink {
 public:
  /// Bytes of the new file, in order; an Error stops the patch.
  using Write = std::function<Result<void>(std::string_view bytes)>;

  /// `basis`: the old file, `basis_size` bytes in blocks of `block` (read with pread, not
  /// owned).
  Patcher(int basis, std::uint64_t basis_size, std::uint32_t block, Write write);

  /// An Error for blocks past the old file's end (a malformed delta), or a failed read or write.
  Result<void> copy(std::uint64_t first, std::uint64_t count) override;
  Result<void> literal(std::string_view bytes) override;

  std::uint64_t size() const { return size_; }  // bytes written so far
  StrongHash digest() const { return hash_.digest(); }

 private:
  Result<void> emit(std::string_view bytes);

  int basis_;
  std::uint64_t basis_size_;
  std::uint32_t block_;
  Write write_;
  std::vector<char> buffer_;
  std::uint64_t size_ = 0;
  StreamHash hash_;
};

}  // namespace pdx
