#include "archive/xxh3.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pdx
