#include "hash/sha256.h"

#include <gtest/gtest.h>

namespace pdx {

namespace {

std::string sha256(const std::string& data, std::size_t chunk) {
  Sha256 hash;
  for (std::size_t at = 0; at < data.size(); at += chunk) {
    hash.update(data.data() + at, std::min(chunk, data.size() - at));
  }
  return hash.hex_digest();
}

}  // namespace

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256("", 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256("abc", 1), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 5),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, ChunkingDoesNotMatter) {
  std::string data(1000003, 'a');
  EXPECT_EQ(sha256(data, 1000003), sha256(data, 63));
  EXPECT_EQ(sha256(std::string(1000000, 'a'), 4096),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace pdx
