#include "archive/manifest.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {

namespace {

constexpr const char* kHelloSha =
    "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

}  // namespace

TEST(Manifest, WritesAndReadsBack) {
  test::TempDir dir;
  Manifest written{"tar.zst", 3, 1234, {{"a.part-0", 5, kHelloSha}, {"a part-1", 0, kHelloSha}}};
  ASSERT_TRUE(write_manifest(dir / "m", written).ok());
  auto read = read_manifest(dir / "m");
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->format, "tar.zst");
  EXPECT_EQ(read->files, 3u);
  EXPECT_EQ(read->bytes, 1234u);
  ASSERT_EQ(read->parts.size(), 2u);
  EXPECT_EQ(read->parts[1].name, "a part-1");
  EXPECT_EQ(read->parts[0].size, 5u);
  EXPECT_EQ(read->parts[0].sha256, kHelloSha);
}

TEST(Manifest, MalformedIsAnErrorNamingTheLine) {
  test::TempDir dir;
  test::write_file(dir / "m", "# pdx manifest 1\n# files many\n");
  auto read = read_manifest(dir / "m");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().find(dir / "m" + ":2: malformed"), std::string::npos);
  test::write_file(dir / "n", "something else\n");
  EXPECT_FALSE(read_manifest(dir / "n").ok());
}

TEST(Manifest, VerifyPartsChecksNamesSizesAndHashes) {
  test::TempDir dir;
  test::write_file(dir / "x.part-0", "hello");
  Manifest manifest{"tar", 1, 5, {{"x.part-0", 5, kHelloSha}}};
  EXPECT_TRUE(verify_parts(manifest, {dir / "x.part-0"}).ok());

  test::write_file(dir / "x.part-0", "hellO");
  auto changed = verify_parts(manifest, {dir / "x.part-0"});
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.error().find("SHA-256 differs"), std::string::npos);

  test::write_file(dir / "x.part-0", "hell");
  EXPECT_NE(verify_parts(manifest, {dir / "x.part-0"}).error().find("4 bytes"), std::string::npos);
  EXPECT_NE(verify_parts(manifest, {}).error().find("missing part x.part-0"), std::string::npos);
  test::write_file(dir / "y.part-0", "hello");
  EXPECT_FALSE(verify_parts(manifest, {dir / "y.part-0"}).ok());
  EXPECT_FALSE(verify_parts(manifest, {dir / "x.part-0", dir / "y.part-0"}).ok());
}

}  // namespace pdx
