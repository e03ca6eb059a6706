#pragma once
// SHA-256 (FIPS 180-4) for manifests: the hash sha256sum(1) prints, so parts can be checked
// with it too. Portable code, about 200 MB/s; only computed when a manifest is asked for.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pdx {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  /// The digest as 64 lower-case hex digits. Ends the computation.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);
  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;
};

}  // namespace pdx
