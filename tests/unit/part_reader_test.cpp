#include "archive/part_reader.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "tests/unit/scratch.h"

namespace pdx {

namespace {

std::string read_all(PartReader& reader, std::size_t chunk) {
  std::string out;
  std::vector<char> buf(chunk);
  for (;;) {
    auto n = reader.read(buf.data(), buf.size());
    EXPECT_TRUE(n.ok());
    if (!n.ok() || *n == 0) return out;
    out.append(buf.data(), *n);
  }
}

}  // namespace

TEST(PartReader, PartsInOrderAsOneStream) {
  test::TempDir dir;
  test::write_file(dir / "p0", "abc");
  test::write_file(dir / "p1", "");
  test::write_file(dir / "p2", "defg");
  PartReader reader({dir / "p0", dir / "p1", dir / "p2"});
  ASSERT_TRUE(reader.check().ok());
  EXPECT_EQ(reader.total_size(), 7u);
  EXPECT_TRUE(reader.seekable());
  EXPECT_EQ(read_all(reader, 2), "abcdefg");
  EXPECT_EQ(reader.current_part(), dir / "p2");
  EXPECT_EQ(reader.position(), 7u);
}

TEST(PartReader, SeeksAcrossParts) {
  test::TempDir dir;
  test::write_file(dir / "p0", "abc");
  test::write_file(dir / "p1", "defg");
  PartReader reader({dir / "p0", dir / "p1"});
  ASSERT_TRUE(reader.check().ok());
  ASSERT_EQ(*reader.seek(4, SEEK_SET), 4u);
  EXPECT_EQ(reader.current_part(), dir / "p1");
  EXPECT_EQ(read_all(reader, 10), "efg");
  ASSERT_EQ(*reader.seek(-6, SEEK_END), 1u);
  EXPECT_EQ(read_all(reader, 10), "bcdefg");
  EXPECT_FALSE(reader.seek(-1, SEEK_SET).ok());
}

TEST(PartReader, MissingPartFailsBeforeReading) {
  test::TempDir dir;
  test::write_file(dir / "p0", "abc");
  PartReader reader({dir / "p0", dir / "p1"});
  auto ok = reader.check();
  ASSERT_FALSE(ok.ok());
  EXPECT_NE(ok.error().find(dir / "p1"), std::string::npos);
}

TEST(PartReader, DirectoryIsNoPart) {
  test::TempDir dir;
  PartReader reader({dir.path().string()});
  EXPECT_FALSE(reader.check().ok());
}

}  // namespace pdx
