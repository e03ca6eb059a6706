#include "archive/part_name.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {

TEST(PartNaming, FixedWidthNumbers) {
  PartNaming naming("out.tar", 3);
  EXPECT_EQ(naming.name(0), "out.tar.part-000");
  EXPECT_EQ(naming.name(42), "out.tar.part-042");
  EXPECT_EQ(naming.capacity(), 1000u);
  EXPECT_EQ(suffix_width_for(1), 1);
  EXPECT_EQ(suffix_width_for(10), 1);
  EXPECT_EQ(suffix_width_for(11), 2);
  EXPECT_EQ(suffix_width_for(100), 2);
  EXPECT_EQ(suffix_width_for(101), 3);
}

TEST(PartNaming, ChooseSuffixWidth) {
  EXPECT_EQ(*choose_suffix_width(std::nullopt, 1000, StreamSize::at_most, 100), 1);
  EXPECT_EQ(*choose_suffix_width(std::nullopt, 1001, StreamSize::at_most, 100), 2);
  EXPECT_EQ(*choose_suffix_width(4, 1001, StreamSize::exact, 100), 4);
  EXPECT_EQ(*choose_suffix_width(1, 5000, StreamSize::at_most, 100), 1);  // writer finds out
  auto narrow = choose_suffix_width(1, 5000, StreamSize::exact, 100);
  ASSERT_FALSE(narrow.ok());
  EXPECT_NE(narrow.error().find("--suffix-length 2"), std::string::npos);
  EXPECT_FALSE(choose_suffix_width(0, 1, StreamSize::exact, 1).ok());
}

TEST(ResolveParts, ExistingFileIsItself) {
  test::TempDir dir;
  test::write_file(dir / "a.tar", "x");
  EXPECT_EQ(*resolve_parts({dir / "a.tar"}), std::vector<std::string>{dir / "a.tar"});
  EXPECT_EQ(*resolve_parts({"-"}), std::vector<std::string>{"-"});
}

TEST(ResolveParts, PrefixFindsPartsInNumericOrder) {
  test::TempDir dir;
  for (int i = 0; i < 12; ++i) test::write_file(dir / ("a.tar.part-" + std::to_string(i)), "x");
  auto parts = resolve_parts({dir / "a.tar"});
  ASSERT_TRUE(parts.ok()) << parts.error();
  ASSERT_EQ(parts->size(), 12u);
  EXPECT_EQ((*parts)[2], dir / "a.tar.part-2");
  EXPECT_EQ((*parts)[10], dir / "a.tar.part-10");
  // split's own prefix works too.
  EXPECT_EQ(resolve_parts({dir / "a.tar.part-"})->size(), 12u);
}

TEST(ResolveParts, GapsDuplicatesAndOrderAreErrors) {
  test::TempDir dir;
  for (int i : {0, 1, 3}) test::write_file(dir / ("b.part-" + std::to_string(i)), "x");
  auto gap = resolve_parts({dir / "b"});
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.error().find("missing part " + dir / "b.part-2"), std::string::npos);

  auto order = resolve_parts({dir / "b.part-1", dir / "b.part-0"});
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().find("out of order"), std::string::npos);

  auto first = resolve_parts({dir / "b.part-1", dir / "b.part-3"});
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().find("missing part " + dir / "b.part-0"), std::string::npos);

  test::write_file(dir / "b.part-01", "x");
  auto twice = resolve_parts({dir / "b"});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().find("are both part 1"), std::string::npos);

  EXPECT_FALSE(resolve_parts({dir / "none"}).ok());
}

TEST(SetFileBeside, OnlyForNumberedPartNames) {
  EXPECT_EQ(PartNaming("d/x.tar.xz", 2).set_file(), "d/x.tar.xz-set");
  EXPECT_EQ(set_file_beside("d/x.tar.xz.part-03"), "d/x.tar.xz-set");
  EXPECT_EQ(set_file_beside("x.part-1.part-0"), "x.part-1-set");
  EXPECT_EQ(set_file_beside("x.tar.xz.part-"), std::nullopt);
  EXPECT_EQ(set_file_beside("x.tar.xz.part-1b"), std::nullopt);
  EXPECT_EQ(set_file_beside("x.tar.xz"), std::nullopt);
  EXPECT_EQ(set_file_beside("gnu.00"), std::nullopt);
}

TEST(ResolveParts, TheSetFileIsNoPart) {
  test::TempDir dir;
  for (const char* name : {"a.tar.part-0", "a.tar.part-1", "a.tar-set"}) {
    test::write_file(dir / name, "x");
  }
  std::vector<std::string> parts = {dir / "a.tar.part-0", dir / "a.tar.part-1"};
  // Swept up by a glob a.tar*, wherever it sorts.
  EXPECT_EQ(*resolve_parts({dir / "a.tar-set", parts[0], parts[1]}), parts);
  EXPECT_EQ(*resolve_parts({parts[0], parts[1], dir / "a.tar-set"}), parts);
  // Named alone: the parts beside it.
  EXPECT_EQ(*resolve_parts({dir / "a.tar-set"}), parts);
  // Not beside parts, it is a file like any other.
  test::write_file(dir / "b-set", "x");
  EXPECT_EQ(*resolve_parts({dir / "b-set"}), std::vector<std::string>{dir / "b-set"});
  EXPECT_EQ(*resolve_parts({dir / "b-set", parts[0]}),
            (std::vector<std::string>{dir / "b-set", parts[0]}));
}

TEST(ResolveParts, UnnumberedListsAreReadAsGiven) {
  std::vector<std::string> list = {"z.bin", "a.bin"};
  EXPECT_EQ(*resolve_parts(list), list);
}

TEST(ExistingParts, OnlyNumberedOnes) {
  test::TempDir dir;
  test::write_file(dir / "c.part-0", "x");
  test::write_file(dir / "c.part-1", "x");
  test::write_file(dir / "c.part-x", "x");
  test::write_file(dir / "c.tar", "x");
  EXPECT_EQ(existing_parts(dir / "c"),
            (std::vector<std::string>{dir / "c.part-0", dir / "c.part-1"}));
}

}  // namespace pdx
