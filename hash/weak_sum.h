#pragma once
// rsync's weak checksum of a block (get_checksum1, CHAR_OFFSET 0), summed at memory speed: the
// hosts of `pdx sync` sum every block of every old file, and pdx every block it matches
// (agent/delta.h). Byte by byte the sum is a chain of dependent adds (about 1.3 GB/s here);
// over 32 bytes at a time it is what AVX2's vpsadbw and vpmaddubsw compute (weights 32..1), used
// where the CPU has AVX2, the byte loop where not. Both give the same sums.
#include <cstddef>
#include <cstdint>

namespace pdx {

/// s1 = the sum of the bytes, s2 = the sum of the running s1 (= the sum of (size - i) * byte i),
/// both mod 2^32.
struct WeakSums {
  std::uint32_t s1 = 0, s2 = 0;
  bool operator==(const WeakSums&) const = default;
};

/// The sums of `size` bytes at `data`, by the fastest way this CPU has.
WeakSums weak_sums(const unsigned char* data, std::size_t size);
/// The same, byte by byte (the reference the fast way is tested against).
WeakSums weak_sums_bytewise(const unsigned char* data, std::size_t size);

}  // namespace pdx
