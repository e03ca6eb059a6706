#include "hash/hash_files.h"

#include <gtest/gtest.h>

#include "hash/xxh3.h"
#include "tests/unit/digests.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::xxh3_of;

// sha256sum of "", "abc" and 3 MiB of 'x' (several reads of the fixed buffer).
constexpr const char* kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST(HashFiles, HashesEveryFileInPlace) {
  test::TempDir dir;
  test::write_file(dir / "e", "");
  test::write_file(dir / "a", "abc");
  test::write_file(dir / "big", std::string(3 << 20, 'x'));
  auto big = hash_file(dir / "big", FileDigest::sha256);
  ASSERT_TRUE(big.ok()) << big.error();
  std::vector<std::string> paths = {dir / "a", dir / "e", dir / "big", dir / "a"};
  auto hashes = hash_files(paths, FileDigest::sha256);
  ASSERT_EQ(hashes.size(), 4u);
  EXPECT_EQ(hashes[0].digest, kAbc);
  EXPECT_EQ(hashes[1].digest, kEmpty);
  EXPECT_EQ(hashes[2].digest, *big);
  EXPECT_EQ(hashes[3].digest, kAbc);
  for (auto& h : hashes) EXPECT_EQ(h.error, "");
}

TEST(HashFiles, HashesWithXxh3AsTheOneShotHashDoes) {
  test::TempDir dir;
  std::string big(3 << 20, 'x');
  big[(2 << 20) + 5] = 'y';  // in the third read of the buffer
  test::write_file(dir / "e", "");
  test::write_file(dir / "a", "abc");
  test::write_file(dir / "big", big);
  auto hashes = hash_files({dir / "a", dir / "e", dir / "big"}, FileDigest::xxh3);
  ASSERT_EQ(hashes.size(), 3u);
  EXPECT_EQ(hashes[0].digest, xxh3_of("abc"));
  EXPECT_EQ(hashes[1].digest, xxh3_of(""));
  EXPECT_EQ(hashes[2].digest, xxh3_of(big));
  EXPECT_EQ(hashes[0].digest.size(), 32u);
  EXPECT_EQ(*hash_file(dir / "big", FileDigest::xxh3), xxh3_of(big));
}

TEST(HashFiles, AnUnreadableFileIsAnErrorInItsPlace) {
  test::TempDir dir;
  test::write_file(dir / "a", "abc");
  for (auto digest : {FileDigest::sha256, FileDigest::xxh3}) {
    auto hashes = hash_files({dir / "missing", dir / "a"}, digest);
    ASSERT_EQ(hashes.size(), 2u);
    EXPECT_EQ(hashes[0].digest, "");
    EXPECT_NE(hashes[0].error.find(dir / "missing"), std::string::npos) << hashes[0].error;
    EXPECT_FALSE(hashes[1].digest.empty());
    EXPECT_FALSE(hash_file(dir / "missing", digest).ok());
    EXPECT_TRUE(hash_files({}, digest).empty());
  }
  EXPECT_EQ(hash_files({dir / "a"}, FileDigest::sha256)[0].digest, kAbc);
}

}  // namespace
}  // namespace pdx
