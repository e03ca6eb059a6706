#include "archive/xxh3.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <cstring>

namespace pdx {

namespace {

StrongHash to_bytes(XXH128_hash_t h) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  StrongHash out;
  std::memcpy(out.data(), c.digest, out.size());
  return out;
}

}  // namespace

StrongHash strong_hash(const void* data, std::size_t size) {
  return to_bytes(XXH3_128bits(data, size));
}

std::string hex(const StrongHash& h) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : h) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

struct StreamHash::State {
  XXH3_state_t xxh;
};

StreamHash::StreamHash() : state_(std::make_unique<State>()) {
  XXH3_128bits_reset(&state_->xxh);
}
StreamHash::~StreamHash() = default;
StreamHash::StreamHash(StreamHash&&) noexcept = default;
StreamHash& StreamHash::operator=(StreamHash&&) noexcept = default;

void StreamHash::update(const void* data, std::size_t size) {
  XXH3_128bits_update(&state_->xxh, data, size);
}

StrongHash StreamHash::digest() const {
  return to_bytes(XXH3_128bits_digest(&state_->xxh));
}

}  // namespace pdx
