#include "hash/xxh3.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#if __has_include(<xxh_x86dispatch.h>)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
// libxxhash's shared library picks the widest vectors the CPU has (AVX2, AVX-512) in these,
// twice SSE2's speed here; its static one (pdx-static) has none of them: weak, they are null.
#pragma weak XXH3_128bits_dispatch
#pragma weak XXH3_128bits_update_dispatch
#define PDX_XXH3_DISPATCH 1
#endif

#include <cstring>

namespace pdx {

namespace {

XXH128_hash_t hash_all(const void* data, std::size_t size) {
#ifdef PDX_XXH3_DISPATCH
  if (XXH3_128bits_dispatch) return XXH3_128bits_dispatch(data, size);
#endif
  return XXH3_128bits(data, size);
}

void hash_more(XXH3_state_t* state, const void* data, std::size_t size) {
#ifdef PDX_XXH3_DISPATCH
  if (XXH3_128bits_update_dispatch) {
    XXH3_128bits_update_dispatch(state, data, size);
    return;
  }
#endif
  XXH3_128bits_update(state, data, size);
}

StrongHash to_bytes(XXH128_hash_t h) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  StrongHash out;
  std::memcpy(out.data(), c.digest, out.size());
  return out;
}

}  // namespace

StrongHash strong_hash(const void* data, std::size_t size) {
  return to_bytes(hash_all(data, size));
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
  hash_more(&state_->xxh, data, size);
}

StrongHash StreamHash::digest() const {
  return to_bytes(XXH3_128bits_digest(&state_->xxh));
}

}  // namespace pdx
