#pragma once
// rsync's delta algorithm (Tridgell and Mackerras, "The rsync algorithm", 1996), the engine of
// `pdx sync`: the host cuts its old file into blocks and sends a signature of each (a weak
// rolling sum and a strong hash); pdx slides a window of one block over the new file, byte by
// byte, and where the weak sum of the window hits a block's and the strong hash agrees, sends
// "copy block i" instead of the bytes. What matches nothing goes as literal bytes.
//
// The strong hash is XXH3-128 (hash/xxh3.h, for its speed): every block of every old file is
// hashed on the hosts, and a window on every weak hit here. It only has to tell blocks apart, not
// resist an attacker: a host can only spoil its own copy, and each patched file is checked whole
// against its XXH3-128 here.
//
// Memory: the signature table, and one bounded window of the new file (reads of kReadSize, the
// pending literal at most kMaxLiteral): never the file.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "hash/xxh3.h"

namespace pdx {

inline constexpr std::uint32_t kMinBlock = 700;         // rsync's BLOCK_SIZE
inline constexpr std::uint32_t kMaxBlock = 128 * 1024;  // rsync's MAX_BLOCK_SIZE (protocol 30)
inline constexpr std::size_t kMaxLiteral = 256 * 1024;  // bytes of one literal op at most

/// The block length for an old file of `size` bytes: sqrt(size) rounded down to a multiple of 8,
/// within [kMinBlock, kMaxBlock] (as rsync's sum_sizes_sqroot).
std::uint32_t block_length(std::uint64_t size);
/// ceil(size / block): the last block may be short.
std::uint64_t block_count(std::uint64_t size, std::uint32_t block);

/// rsync's weak checksum of a window (get_checksum1, CHAR_OFFSET 0): s1 = sum of the bytes,
/// s2 = sum of the running s1; both mod 2^16. Rolled one byte at a time in O(1).
class RollingSum {
 public:
  void reset(const unsigned char* data, std::size_t size);
  /// The window moves one byte: `out` leaves at its front, `in` joins at its end.
  void roll(unsigned char out, unsigned char in) {
    s1_ += in - out;
    s2_ += s1_ - length_ * out;
  }
  std::uint32_t value() const { return (s1_ & 0xffff) | (s2_ << 16); }

 private:
  std::uint32_t s1_ = 0, s2_ = 0, length_ = 0;
};

struct BlockSum {
  std::uint32_t weak = 0;
  StrongHash strong{};
  bool operator==(const BlockSum&) const = default;
};

/// An old file's signature.
struct Signature {
  std::uint64_t size = 0;   // bytes of the old file
  std::uint32_t block = 0;  // block_length(size)
  std::vector<BlockSum> blocks;
  bool operator==(const Signature&) const = default;
};

/// The signature of the first `size` bytes of `fd`, read with pread on up to `threads` threads,
/// each over its own range of blocks. An Error: a read failed or the file was shorter ("changed
/// while read").
Result<Signature> compute_signature(int fd, std::uint64_t size, unsigned threads);

/// Where a delta goes: ops in order, which rebuild the new file from the old one's blocks.
class DeltaSink {
 public:
  virtual ~DeltaSink() = default;
  /// Blocks first .. first+count-1 of the old file.
  virtual Result<void> copy(std::uint64_t first, std::uint64_t count) = 0;
  /// Bytes of the new file, at most kMaxLiteral.
  virtual Result<void> literal(std::string_view bytes) = 0;
};

struct DeltaResult {
  std::uint64_t size = 0;  // bytes of the new file read
  StrongHash hash{};       // their XXH3-128
  std::uint64_t literal_bytes = 0;
  std::uint64_t copied_blocks = 0;
};

/// Reads `in` to its end and sends the ops that make it from `basis`'s old file to `sink`
/// (consecutive blocks as one copy). An Error: a read failed, or the sink's.
Result<DeltaResult> compute_delta(int in, const Signature& basis, DeltaSink& sink);

}  // namespace pdx
