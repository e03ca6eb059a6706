#include "archive/open_output.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {

TEST(OpenOutput, OneFileAppearsOnFinish) {
  test::TempDir dir;
  auto sink = open_output({dir / "a.tar", std::nullopt, 1, Overwrite::no});
  ASSERT_TRUE(sink.ok()) << sink.error();
  ASSERT_TRUE((*sink)->write("abc", 3).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "a.tar"));
  ASSERT_TRUE((*sink)->finish().ok());
  EXPECT_EQ(test::read_file(dir / "a.tar"), "abc");
  EXPECT_EQ((*sink)->written(), 3u);
  EXPECT_EQ((*sink)->files()[0].name, dir / "a.tar");
}

TEST(OpenOutput, NeverOverwritesSilently) {
  test::TempDir dir;
  test::write_file(dir / "a.tar", "old");
  test::write_file(dir / "b.tar.part-3", "old");
  auto file = open_output({dir / "a.tar", std::nullopt, 1, Overwrite::no});
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().find("already exists"), std::string::npos);
  auto parts = open_output({dir / "b.tar", 10, 1, Overwrite::no});
  ASSERT_FALSE(parts.ok());
  EXPECT_NE(parts.error().find("b.tar.part-3: already exists"), std::string::npos);
  EXPECT_TRUE(open_output({dir / "a.tar", std::nullopt, 1, Overwrite::yes}).ok());
  // A set file alone (its parts gone) is not replaced silently either.
  test::write_file(dir / "c.tar-set", "old");
  auto set = open_output({dir / "c.tar", 10, 1, Overwrite::no});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.error().find("c.tar-set: already exists"), std::string::npos);
}

TEST(OpenOutput, PartsListedByNameHaveNoNewlineInTheirName) {
  test::TempDir dir;
  auto parts = open_output({dir / "a\nb.tar", 10, 1, Overwrite::no});
  ASSERT_FALSE(parts.ok());
  EXPECT_NE(parts.error().find("newline"), std::string::npos);
  // Framed parts are listed nowhere.
  EXPECT_TRUE(
      open_output({dir / "a\nb.tar.zst", 4096, 1, Overwrite::no, Checksum::none, PartFraming::zstd})
          .ok());
}

TEST(OpenOutput, StdoutCannotBeSplit) {
  EXPECT_TRUE(open_output({"-", std::nullopt, 1, Overwrite::no}).ok());
  EXPECT_FALSE(open_output({"-", 100, 1, Overwrite::no}).ok());
}

}  // namespace pdx
