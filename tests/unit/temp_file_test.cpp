#include "archive/temp_file.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {

TEST(TempFile, AppearsOnlyWhenCommitted) {
  test::TempDir dir;
  auto file = TempFile::create(dir / "out");
  ASSERT_TRUE(file.ok()) << file.error();
  ASSERT_TRUE(file->write("hello", 5).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  ASSERT_EQ(test::list_dir(dir.path()).size(), 1u);
  EXPECT_EQ(test::list_dir(dir.path())[0].rfind(".out.pdx-", 0), 0u);
  ASSERT_TRUE(file->commit().ok());
  EXPECT_EQ(test::read_file(dir / "out"), "hello");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"out"});
}

TEST(TempFile, RemovedWhenNotCommitted) {
  test::TempDir dir;
  {
    auto file = TempFile::create(dir / "out");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->write("x", 1).ok());
  }
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

TEST(TempFile, CreateFailsInAMissingDirectory) {
  test::TempDir dir;
  auto file = TempFile::create(dir / "no/such/dir/out");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().find("cannot create"), std::string::npos);
}

}  // namespace pdx
