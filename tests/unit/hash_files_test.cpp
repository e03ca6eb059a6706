#include "archive/hash_files.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

// sha256sum of "", "abc" and 3 MiB of 'x' (several reads of the fixed buffer).
constexpr const char* kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST(HashFiles, HashesEveryFileInPlace) {
  test::TempDir dir;
  test::write_file(dir / "e", "");
  test::write_file(dir / "a", "abc");
  test::write_file(dir / "big", std::string(3 << 20, 'x'));
  auto big = hash_file(dir / "big");
  ASSERT_TRUE(big.ok()) << big.error();
  std::vector<std::string> paths = {dir / "a", dir / "e", dir / "big", dir / "a"};
  auto hashes = hash_files(paths);
  ASSERT_EQ(hashes.size(), 4u);
  EXPECT_EQ(hashes[0].sha256, kAbc);
  EXPECT_EQ(hashes[1].sha256, kEmpty);
  EXPECT_EQ(hashes[2].sha256, *big);
  EXPECT_EQ(hashes[3].sha256, kAbc);
  for (auto& h : hashes) EXPECT_EQ(h.error, "");
}

TEST(HashFiles, AnUnreadableFileIsAnErrorInItsPlace) {
  test::TempDir dir;
  test::write_file(dir / "a", "abc");
  auto hashes = hash_files({dir / "missing", dir / "a"});
  ASSERT_EQ(hashes.size(), 2u);
  EXPECT_EQ(hashes[0].sha256, "");
  EXPECT_NE(hashes[0].error.find(dir / "missing"), std::string::npos) << hashes[0].error;
  EXPECT_EQ(hashes[1].sha256, kAbc);
  EXPECT_FALSE(hash_file(dir / "missing").ok());
  EXPECT_TRUE(hash_files({}).empty());
}

}  // namespace
}  // namespace pdx
