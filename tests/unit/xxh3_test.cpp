#include "hash/xxh3.h"

#define XXH_STATIC_LINKING_ONLY
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>

#include <string>

namespace pdx {
namespace {

TEST(Xxh3Test, TheEmptyInputHasXxhsumsDigest) {
  // xxhsum -H2 of an empty file (xxHash 0.8).
  EXPECT_EQ(hex(strong_hash("", 0)), "99aa06d3014798d86001c324468d497f");
}

TEST(Xxh3Test, AStreamInPiecesHashesAsTheWhole) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data.push_back(static_cast<char>(i * 7));
  StreamHash stream;
  for (std::size_t at = 0; at < data.size(); at += 333) {
    stream.update(data.data() + at, std::min<std::size_t>(333, data.size() - at));
  }
  EXPECT_EQ(stream.digest(), strong_hash(data.data(), data.size()));
  EXPECT_NE(strong_hash(data.data(), data.size() - 1), strong_hash(data.data(), data.size()));
}

TEST(Xxh3Test, TheWidestVectorsHashAsSse2AtEveryLength) {
  std::string data;
  for (int i = 0; i < 3 * 1024 * 1024; ++i) data.push_back(static_cast<char>(i * 131 + (i >> 9)));
  auto sse2 = [&](std::size_t size) {  // libxxhash's own XXH3_128bits: SSE2 on x86-64
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(data.data(), size));
    StrongHash out;
    std::memcpy(out.data(), c.digest, out.size());
    return out;
  };
  for (std::size_t size : {0, 1, 16, 17, 128, 129, 240, 241, 1024, 16384, 16385, 3 << 20}) {
    ASSERT_EQ(strong_hash(data.data(), size), sse2(size)) << size;
    StreamHash stream;
    stream.update(data.data(), size / 3);
    stream.update(data.data() + size / 3, size - size / 3);
    ASSERT_EQ(stream.digest(), sse2(size)) << size;
  }
}

}  // namespace
}  // namespace pdx
