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

namespace {

// A framed part: its header, then body.
std::string framed(const PackId& id, std::uint64_t index, bool last, const std::string& body,
                   PartFraming framing = PartFraming::zstd) {
  std::size_t size = encode_part_header(framing, {}).size();
  return encode_part_header(framing, {id, index, size + body.size(), last}) + body;
}

// The error check() gives for these files, "" if none.
std::string check_error(const std::vector<std::string>& files) {
  PartReader reader(files);
  auto ok = reader.check();
  return ok ? "" : ok.error();
}

}  // namespace

TEST(PartReader, FramedSetInOrderPasses) {
  test::TempDir dir;
  PackId id = random_pack_id();
  for (PartFraming framing : {PartFraming::zstd, PartFraming::gzip}) {
    test::write_file(dir / "p0", framed(id, 0, false, "abc", framing));
    test::write_file(dir / "p1", framed(id, 1, false, "", framing));
    test::write_file(dir / "p2", framed(id, 2, true, "defg", framing));
    EXPECT_EQ(check_error({dir / "p0", dir / "p1", dir / "p2"}), "");
    // Joined into one file (cat), the headers still follow one another.
    test::write_file(dir / "all", test::read_file(dir / "p0") + test::read_file(dir / "p1") +
                                      test::read_file(dir / "p2"));
    EXPECT_EQ(check_error({dir / "all"}), "");
    // Cut again at other places (split -b), headers across files included.
    std::string all = test::read_file(dir / "all");
    std::vector<std::string> pieces;
    for (std::size_t at = 0; at < all.size(); at += 7) {
      pieces.push_back(dir / ("piece" + std::to_string(at)));
      test::write_file(pieces.back(), all.substr(at, 7));
    }
    EXPECT_EQ(check_error(pieces), "");
    PartReader reader({dir / "p0", dir / "p1", dir / "p2"});
    ASSERT_TRUE(reader.check().ok());
    EXPECT_NE(read_all(reader, 100).find("abc"), std::string::npos);
  }
}

TEST(PartReader, ForeignMissingMisorderedOrTruncatedPartsAreRefusedByName) {
  test::TempDir dir;
  PackId id = random_pack_id(), other = random_pack_id();
  test::write_file(dir / "p0", framed(id, 0, false, "abc"));
  test::write_file(dir / "p1", framed(id, 1, false, "def"));
  test::write_file(dir / "p2", framed(id, 2, true, "ghi"));
  test::write_file(dir / "q1", framed(other, 1, false, "DEF"));
  test::write_file(dir / "plain", "just bytes, no header at all");
  std::string error = check_error({dir / "p0", dir / "q1", dir / "p2"});
  EXPECT_NE(error.find(dir / "q1"), std::string::npos) << error;
  EXPECT_NE(error.find("another pack"), std::string::npos) << error;
  error = check_error({dir / "p0", dir / "p2"});
  EXPECT_NE(error.find(dir / "p2"), std::string::npos) << error;
  EXPECT_NE(error.find("part 1 is missing"), std::string::npos) << error;
  error = check_error({dir / "p1", dir / "p0", dir / "p2"});
  EXPECT_NE(error.find("out of order"), std::string::npos) << error;
  error = check_error({dir / "p0", dir / "p1"});
  EXPECT_NE(error.find(dir / "p1"), std::string::npos) << error;
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
  error = check_error({dir / "p0"});  // a lone first part is not the archive
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
  error = check_error({dir / "p0", dir / "p1", dir / "p2", dir / "plain"});
  EXPECT_NE(error.find(dir / "plain"), std::string::npos) << error;
  error = check_error({dir / "p0", dir / "plain", dir / "p2"});
  EXPECT_NE(error.find(dir / "plain"), std::string::npos) << error;
  error = check_error({dir / "plain", dir / "p1"});
  EXPECT_NE(error.find(dir / "p1"), std::string::npos) << error;
  std::string p1 = test::read_file(dir / "p1");
  test::write_file(dir / "p1", p1.substr(0, p1.size() - 1));
  error = check_error({dir / "p0", dir / "p1", dir / "p2"});
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // Files that are not framed parts are read as before, unchecked.
  EXPECT_EQ(check_error({dir / "plain", dir / "plain"}), "");
}

}  // namespace pdx
