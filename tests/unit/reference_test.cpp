#include "distribute/verify/reference.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "archive/manifest.h"
#include "hash/xxh3.h"
#include "scratch.h"

namespace pdx {
namespace {

const std::string kHelloSha = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

TEST(Reference, RegularFilesSortedWithSizesAndHashes) {
  test::TempDir dir;
  test::write_file(dir / "b/c", "hello");
  test::write_file(dir / "a", "");
  std::filesystem::create_symlink("a", dir / "link");
  std::filesystem::create_directories(dir / "empty");
  auto ref = local_reference(dir.path().string(), true);
  ASSERT_TRUE(ref) << ref.error();
  ASSERT_EQ(ref->files.size(), 3u);
  EXPECT_EQ(ref->files[0].name, "a");
  EXPECT_EQ(ref->files[1].name, "b/c");
  EXPECT_EQ(ref->files[1].size, 5u);
  EXPECT_TRUE(ref->has_hashes);
  EXPECT_EQ(ref->files[1].sha256, "");  // hashed when a kind is asked for
  EXPECT_EQ(ref->file_count, 2u);       // regular files
  EXPECT_EQ(ref->bytes, 5u);
  ASSERT_NE(ref->find("b/c"), nullptr);
  ASSERT_NE(ref->find("link"), nullptr);  // a symlink, by its target, not followed
  EXPECT_EQ(ref->find("link")->target, "a");
  EXPECT_TRUE(hash_reference(*ref, FileDigest::xxh3).ok());
  EXPECT_EQ(ref->find("link")->xxh3, "");
}

TEST(Reference, HashedWithEitherDigest) {
  test::TempDir dir;
  test::write_file(dir / "b/c", "hello");
  test::write_file(dir / "a", "");
  auto ref = local_reference(dir.path().string(), true);
  ASSERT_TRUE(ref) << ref.error();
  ASSERT_TRUE(hash_reference(*ref, FileDigest::sha256));
  EXPECT_EQ(ref->files[1].digest(FileDigest::sha256), kHelloSha);
  EXPECT_EQ(ref->files[1].xxh3, "");
  ASSERT_TRUE(hash_reference(*ref, FileDigest::xxh3));
  EXPECT_EQ(ref->files[1].digest(FileDigest::xxh3), hex(strong_hash("hello", 5)));
  EXPECT_EQ(ref->files[1].sha256, kHelloSha);
}

TEST(Reference, AnUnreadableFileFailsItsHashing) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  test::TempDir dir;
  test::write_file(dir / "secret", "x");
  ::chmod((dir / "secret").c_str(), 0);
  auto ref = local_reference(dir.path().string(), true);
  ASSERT_TRUE(ref);
  auto hashed = hash_reference(*ref, FileDigest::xxh3);
  ASSERT_FALSE(hashed);
  EXPECT_NE(hashed.error().find("secret"), std::string::npos) << hashed.error();
}

TEST(Reference, WithoutHashNoneAreComputed) {
  test::TempDir dir;
  test::write_file(dir / "a", "hello");
  auto ref = local_reference(dir.path().string(), false);
  ASSERT_TRUE(ref);
  EXPECT_FALSE(ref->has_hashes);
  EXPECT_EQ(ref->files[0].sha256, "");
}

TEST(Reference, MissingDirectoryIsBadInput) {
  test::TempDir dir;
  auto ref = local_reference(dir / "none", false);
  ASSERT_FALSE(ref);
  EXPECT_EQ(ref.error_kind(), ErrorKind::bad_input);
}

TEST(Reference, ManifestGivesCountsOnly) {
  test::TempDir dir;
  ASSERT_TRUE(write_manifest(dir / "m", Manifest{"tar", 3, 42, {{"x", 5, kHelloSha}}}));
  auto ref = manifest_reference(dir / "m");
  ASSERT_TRUE(ref) << ref.error();
  EXPECT_FALSE(ref->has_names);
  EXPECT_EQ(ref->file_count, 3u);
  EXPECT_EQ(ref->bytes, 42u);
  EXPECT_FALSE(manifest_reference(dir / "none"));
}

}  // namespace
}  // namespace pdx
