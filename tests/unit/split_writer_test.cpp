#include "archive/split_writer.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "archive/part_reader.h"
#include "hash/xxh3.h"
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
            (std::vector<std::string>{"x-set", "x.part-00", "x.part-01", "x.part-02"}));
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
  EXPECT_EQ(test::list_dir(dir.path()),
            (std::vector<std::string>{"x-set", "x.part-0", "x.part-1"}));
}

TEST(SplitWriter, EmptyStreamIsOneEmptyPart) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 1), 3, Overwrite::no);
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{"x-set", "x.part-0"}));
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
  EXPECT_EQ(test::list_dir(dir.path()),
            (std::vector<std::string>{"x-set", "x.part-0", "x.part-1"}));
  EXPECT_EQ(test::read_file(dir / "x.part-1"), "e");
}

TEST(SplitWriter, UnframedPartsAreListedInTheirSetFile) {
  test::TempDir dir;
  SplitWriter writer(PartNaming(dir / "x", 1), 4, Overwrite::no);
  ASSERT_TRUE(writer.write("abcdefghij", 10).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "x-set"));  // with the parts, at finish()
  ASSERT_TRUE(writer.finish().ok());
  auto set = read_set_file(dir / "x-set");
  ASSERT_TRUE(set.ok()) << set.error();
  EXPECT_EQ(set->id, writer.pack_id());
  ASSERT_EQ(set->parts.size(), 3u);
  EXPECT_EQ(set->parts[2].name, "x.part-2");
  EXPECT_EQ(set->parts[2].size, 2u);
  EXPECT_EQ(set->parts[1].xxh3, hex(strong_hash("efgh", 4)));
}

TEST(SplitWriter, FramedPartsHaveNoSetFileAndForceRemovesAnOlderOne) {
  test::TempDir dir;
  test::write_file(dir / "x-set", "an older set's");
  SplitWriter writer(PartNaming(dir / "x", 1), 4096, Overwrite::yes, Checksum::none,
                     PartFraming::gzip);
  ASSERT_TRUE(writer.write("abc", 3).ok());
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"x.part-0"});
}

// finish() over an older set of the same layout, stopped (SIGKILL) after each of its steps: the
// set file, the older parts past the new last removed, the parts renamed one by one. What a
// reader finds is the older set, the new one, or a set refused naming a part.
TEST(SplitWriter, EachStepOfFinishLeavesOneSetOrARefusal) {
  test::TempDir old_dir, new_dir;
  auto write_set = [](const test::TempDir& dir, const std::string& data) {
    SplitWriter writer(PartNaming(dir / "x", 1), 4, Overwrite::no);
    EXPECT_TRUE(writer.write(data.data(), data.size()).ok());
    EXPECT_TRUE(writer.finish().ok());
  };
  write_set(old_dir, "OLD-old-OLD-o");  // four parts
  write_set(new_dir, "new-NEW-new");    // three, of the older ones' sizes but the last
  auto reads_as = [](const test::TempDir& dir) {
    std::vector<std::string> parts = existing_parts(dir / "x");
    PartReader reader(parts);
    if (auto ok = reader.check(); !ok) {
      EXPECT_EQ(ok.error_kind(), ErrorKind::bad_input);
      return std::string("refused");
    }
    std::string out;
    char buffer[64];
    for (std::size_t n; (n = *reader.read(buffer, sizeof buffer)) > 0;) out.append(buffer, n);
    return out;
  };
  EXPECT_EQ(reads_as(old_dir), "OLD-old-OLD-o");
  test::TempDir mixed;
  for (const auto& name : test::list_dir(old_dir.path()))
    std::filesystem::copy_file(old_dir / name, mixed / name);
  std::filesystem::copy_file(new_dir / "x-set", mixed / "x-set",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(reads_as(mixed), "refused");  // the set file replaced
  std::filesystem::remove(mixed / "x.part-3");
  EXPECT_EQ(reads_as(mixed), "refused");  // the older part past the new last removed
  for (const char* part : {"x.part-0", "x.part-1", "x.part-2"}) {
    EXPECT_EQ(reads_as(mixed), "refused");
    std::filesystem::copy_file(new_dir / part, mixed / part,
                               std::filesystem::copy_options::overwrite_existing);
  }
  EXPECT_EQ(reads_as(mixed), "new-NEW-new");
}

}  // namespace pdx
