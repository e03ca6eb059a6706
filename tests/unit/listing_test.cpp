#include "distribute/listing.h"

#include <gtest/gtest.h>

#include <vector>

namespace pdx {
namespace {

using namespace std::string_literals;

struct Seen {
  std::string name, sha256;
  std::uint64_t size;
  bool hash;
};

Result<std::vector<Seen>> parse_all(const std::vector<std::string>& chunks) {
  ListingParser parser;
  std::vector<Seen> seen;
  for (const auto& chunk : chunks) {
    TRY(parser.feed(chunk, [&](const ListingRecord& r) {
      seen.push_back({std::string(r.name), std::string(r.sha256), r.size,
                      r.kind == ListingRecord::Kind::hash});
    }));
  }
  TRY(parser.end());
  return seen;
}

const std::string kHash(64, 'a');

TEST(Listing, SizesAndHashesAcrossChunks) {
  auto seen = parse_all({"s 12 a/b c\0s 0 d"s, "\n\0"s + kHash + "  ./a/b c\0"s});
  ASSERT_TRUE(seen) << seen.error();
  ASSERT_EQ(seen->size(), 3u);
  EXPECT_EQ((*seen)[0].name, "a/b c");
  EXPECT_EQ((*seen)[0].size, 12u);
  EXPECT_EQ((*seen)[1].name, "d\n");
  EXPECT_TRUE((*seen)[2].hash);
  EXPECT_EQ((*seen)[2].name, "a/b c");
  EXPECT_EQ((*seen)[2].sha256, kHash);
}

TEST(Listing, UnsafeNamesAreRefused) {
  for (std::string name : {"../x", "/etc/passwd", "a/../b", "a//b", "./a", "", "a/"}) {
    EXPECT_FALSE(parse_all({"s 1 " + name + "\0"s})) << name;
  }
  EXPECT_FALSE(parse_all({kHash + "  ./../x\0"s}));
}

TEST(Listing, MalformedRecordsAreRefused) {
  for (std::string record : std::vector<std::string>{
           "s x a", "s -1 a", "s 99999999999999999999999 a", "s  a", "t 1 a",
           kHash.substr(1) + "  ./a", kHash + " ./a", std::string(64, 'G') + "  ./a"}) {
    auto seen = parse_all({record + "\0"s});
    ASSERT_FALSE(seen) << record;
    EXPECT_NE(seen.error().find("malformed listing from the host"), std::string::npos);
  }
}

TEST(Listing, RecordsAreBoundedAndMustEnd) {
  EXPECT_FALSE(parse_all({"s 1 " + std::string(ListingParser::kMaxRecord, 'a')}));
  auto unfinished = parse_all({"s 1 a"});
  ASSERT_FALSE(unfinished);
  EXPECT_NE(unfinished.error().find("ends inside a record"), std::string::npos);
}

TEST(Listing, NothingIsTakenAfterAnError) {
  ListingParser parser;
  int records = 0;
  auto count = [&](const ListingRecord&) { ++records; };
  EXPECT_FALSE(parser.feed("s x\0"s, count));
  EXPECT_TRUE(parser.feed("s 1 a\0"s, count));
  EXPECT_EQ(records, 0);
}

}  // namespace
}  // namespace pdx
