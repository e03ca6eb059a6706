#include "archive/split_writer.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {

TEST(SplitWriter, RotatesPartsWhileStreaming) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 2), 4, Overwrite::no);
  ASSERT_TRUE(writer.write("abcdef", 6).ok());
  // The full first part is in place already; the second is still a temporary file.
  EXPECT_EQ(test::read_file(dir / "x.part-00"), "abcd");
  EXPECT_FALSE(std::filesystem::exists(dir / "x.part-01"));
  ASSERT_TRUE(writer.write("ghij", 4).ok());
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()),
            (std::vector<std::string>{"x.part-00", "x.part-01", "x.part-02"}));
  EXPECT_EQ(test::read_file(dir / "x.part-01"), "efgh");
  EXPECT_EQ(test::read_file(dir / "x.part-02"), "ij");
  EXPECT_EQ(writer.files().size(), 3u);
  EXPECT_EQ(writer.written(), 10u);
}

TEST(SplitWriter, ExactMultipleMakesNoEmptyLastPart) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 1), 3, Overwrite::no);
  ASSERT_TRUE(writer.write("abcdef", 6).ok());
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{"x.part-0", "x.part-1"}));
}

TEST(SplitWriter, EmptyStreamIsOneEmptyPart) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 1), 3, Overwrite::no);
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"x.part-0"});
}

TEST(SplitWriter, RunningOutOfSuffixesRemovesEverything) {
  test::TempDir dir;
  {
    SplitWriter writer(PartNaming(dir / "x", 1), 1, Overwrite::no);
    auto ok = writer.write("0123456789AB", 12);
    ASSERT_FALSE(ok.ok());
    EXPECT_NE(ok.error().find("needs more than 10 parts"), std::string::npos);
  }
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

TEST(SplitWriter, ForceRemovesStaleParts) {
  test::TempDir dir;
  for (const char* old : {"x.part-0", "x.part-1", "x.part-2", "x.part-02"}) {
    test::write_file(dir / old, "old");
  }
  SplitWriter writer(PartNaming(dir / "x", 1), 4, Overwrite::yes);
  ASSERT_TRUE(writer.write("abcde", 5).ok());
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{"x.part-0", "x.part-1"}));
  EXPECT_EQ(test::read_file(dir / "x.part-1"), "e");
}

}  // namespace pdx
