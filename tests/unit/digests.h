#pragma once
// The digests tests compare with: XXH3-128 and SHA-256 of a string, as hex.
#include <string>

#include "hash/sha256.h"
#include "hash/xxh3.h"

namespace pdx::test {

inline std::string xxh3_of(const std::string& data) {
  return hex(strong_hash(data.data(), data.size()));
}

inline std::string sha256_of(const std::string& data) {
  Sha256 hash;
  hash.update(data.data(), data.size());
  return hash.hex_digest();
}

}  // namespace pdx::test
