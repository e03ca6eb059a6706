#include "archive/split_writer.h"

#include <gtest/gtest.h>

#include "tests/unit/scratch.h"

namespace pdx {

TEST(SplitWriter, RotatesPartsWhileStreaming) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 2), 4, Overwrite::no);
  ASSERT_TRUE(writer.write("abcdef", 6).ok());
  // The set appears only when complete: the parts are temporary files until finish().
  EXPECT_FALSE(std::filesystem::exists(dir / "x.part-00"));
  ASSERT_TRUE(writer.write("ghij", 4).ok());
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()),
            (std::vector<std::string>{"x.part-00", "x.part-01", "x.part-02"}));
  EXPECT_EQ(test::read_file(dir / "x.part-00"), "abcd");
  EXPECT_EQ(test::read_file(dir / "x.part-01"), "efgh");
  EXPECT_EQ(test::read_file(dir / "x.part-02"), "ij");
  EXPECT_EQ(writer.files().size(), 3u);
  EXPECT_EQ(writer.written(), 10u);
}

TEST(SplitWriter, AnUnfinishedSetLeavesTheOldOneWhole) {
  test::TempDir dir;
  for (const char* old : {"x.part-0", "x.part-1", "x.part-2"}) test::write_file(dir / old, "old");
  {
    SplitWriter writer(PartNaming(dir / "x", 1), 4, Overwrite::yes);
    ASSERT_TRUE(writer.write("abcdefghi", 9).ok());  // two parts full, a third begun
    EXPECT_EQ(test::read_file(dir / "x.part-0"), "old");
    EXPECT_EQ(test::read_file(dir / "x.part-1"), "old");
  }  // dropped without finish(), as when pack fails
  EXPECT_EQ(test::list_dir(dir.path()),
            (std::vector<std::string>{"x.part-0", "x.part-1", "x.part-2"}));
  EXPECT_EQ(test::read_file(dir / "x.part-0"), "old");
}

TEST(SplitWriter, FramedPartsBeginWithTheirHeader) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 1), 4096, Overwrite::no, Checksum::sha256,
                     PartFraming::zstd);
  auto room = *writer.part_room();
  ASSERT_TRUE(room.has_value());
  std::size_t header = encode_part_header(PartFraming::zstd, {}).size();
  EXPECT_EQ(*room, 4096 - header);
  ASSERT_TRUE(writer.write("first", 5).ok());
  ASSERT_TRUE(writer.end_part().ok());
  ASSERT_TRUE(writer.write("second", 6).ok());
  // A write the part has no room for is refused, never cut.
  std::string big(5000, 'x');
  EXPECT_FALSE(writer.write(big.data(), big.size()).ok());
  ASSERT_TRUE(writer.finish().ok());
  ASSERT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{"x.part-0", "x.part-1"}));
  std::string p0 = test::read_file(dir / "x.part-0"), p1 = test::read_file(dir / "x.part-1");
  auto h0 = decode_part_header(p0), h1 = decode_part_header(p1);
  ASSERT_TRUE(h0 && h1);
  EXPECT_EQ(h0->pack_id, writer.pack_id());
  EXPECT_EQ(h1->pack_id, writer.pack_id());
  EXPECT_EQ(h0->index, 0u);
  EXPECT_EQ(h1->index, 1u);
  EXPECT_FALSE(h0->last);
  EXPECT_TRUE(h1->last);
  EXPECT_EQ(h0->length, p0.size());
  EXPECT_EQ(p0.substr(header), "first");
  EXPECT_EQ(writer.files()[0].size, p0.size());
  EXPECT_EQ(writer.files()[1].sha256.size(), 64u);
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
