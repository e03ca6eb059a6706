#pragma once
// XXH3-128 (libxxhash): the hash pdx uses where both ends are pdx and the hash only has to tell
// contents apart, not resist an attacker (the links are authenticated; a host can only spoil its
// own copy). Measured here: 15 GB/s with SSE2, 30 GB/s with AVX2 or AVX-512 (libxxhash's
// dispatch, where it has one), against 0.5 GB/s for OpenSSL's SHA-256 (SHA-NI) on 16 KiB
// blocks. Where a digest is shown to people or checked by other tools (manifests, sha256sum -c),
// pdx uses SHA-256 (hash/sha256.h).
#include <array>
#include <cstddef>
#include <memory>
#include <string>

namespace pdx {

using StrongHash = std::array<unsigned char, 16>;
StrongHash strong_hash(const void* data, std::size_t size);
/// 32 hex digits.
std::string hex(const StrongHash& h);

/// XXH3-128 of a stream given in pieces.
class StreamHash {
 public:
  StreamHash();
  ~StreamHash();
  StreamHash(StreamHash&&) noexcept;
  StreamHash& operator=(StreamHash&&) noexcept;
  void update(const void* data, std::size_t size);
  StrongHash digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pdx
