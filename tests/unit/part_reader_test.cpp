#include "archive/part_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "hash/xxh3.h"
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

namespace {

// Parts x.part-0 ... in dir holding `bodies`, and the set file x-set listing them.
std::vector<std::string> listed_parts(const test::TempDir& dir,
                                      const std::vector<std::string>& bodies, const PackId& id) {
  SetFile set;
  set.id = id;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    names.push_back(dir / ("x.part-" + std::to_string(i)));
    test::write_file(names.back(), bodies[i]);
    set.parts.push_back({"x.part-" + std::to_string(i), bodies[i].size(),
                         hex(strong_hash(bodies[i].data(), bodies[i].size()))});
  }
  test::write_file(dir / "x-set", encode_set_file(set));
  return names;
}

}  // namespace

TEST(PartReader, ListedSetPassesAndGivesItsPackId) {
  test::TempDir dir;
  PackId id = random_pack_id();
  auto parts = listed_parts(dir, {"abcd", "efgh", "ij"}, id);
  PartReader reader(parts);
  ASSERT_TRUE(reader.check().ok());
  ASSERT_TRUE(reader.pack_id().has_value());
  EXPECT_EQ(*reader.pack_id(), id);
  EXPECT_EQ(read_all(reader, 3), "abcdefghij");
  // Sizes only: the contents were checked otherwise, so the set file's id is not vouched for.
  PartReader sized(parts);
  ASSERT_TRUE(sized.check(SetCheck::sizes).ok());
  EXPECT_FALSE(sized.pack_id().has_value());
}

TEST(PartReader, PartsNotAsTheirSetFileListsAreRefusedByName) {
  test::TempDir dir;
  auto parts = listed_parts(dir, {"abcd", "efgh", "ij"}, random_pack_id());
  auto error_of = [](const std::vector<std::string>& files, SetCheck how = SetCheck::contents) {
    PartReader reader(files);
    auto ok = reader.check(how);
    if (ok) return std::string();
    EXPECT_EQ(ok.error_kind(), ErrorKind::bad_input);
    return ok.error();
  };
  // The last part missing: named, though nothing else tells it is missing.
  std::string error = error_of({parts[0], parts[1]});
  EXPECT_EQ(error, "missing part " + parts[2] + ": " + dir / "x-set" + " lists 3 parts, 2 given");
  // A part after the last.
  test::write_file(dir / "x.part-3", "kl");
  error = error_of({parts[0], parts[1], parts[2], dir / "x.part-3"});
  EXPECT_EQ(error.find(dir / "x.part-3" + ": not a part of the set"), 0u) << error;
  // A part of another pack, of the same size: refused by its hash, not by sizes alone.
  test::write_file(parts[1], "EFGH");
  error = error_of(parts);
  EXPECT_EQ(error.find(parts[1] + ": not the part " + dir / "x-set" + " lists"), 0u) << error;
  EXPECT_EQ(error_of(parts, SetCheck::sizes), "");
  // Truncated.
  test::write_file(parts[1], "efg");
  error = error_of(parts);
  EXPECT_EQ(error.find(parts[1] + ": 3 bytes, where " + dir / "x-set" + " lists 4"), 0u) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // Another name in the place of a listed part.
  test::write_file(parts[1], "efgh");
  std::filesystem::copy_file(parts[1], dir / "y.part-1");
  error = error_of({parts[0], dir / "y.part-1", parts[2]});
  EXPECT_EQ(
      error.find(dir / "y.part-1: given as part 1, where " + dir / "x-set" + " lists x.part-1"), 0u)
      << error;
  // A malformed set file is named.
  test::write_file(dir / "x-set", "pdx-set 1\n");
  error = error_of(parts);
  EXPECT_EQ(error.find(dir / "x-set:2: no pack id"), 0u) << error;
  // No set file: read unchecked, as parts of an older pdx or of split(1).
  std::filesystem::remove(dir / "x-set");
  EXPECT_EQ(error_of({parts[0], parts[1]}), "");
}

}  // namespace pdx
