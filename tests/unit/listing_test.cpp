#include "distribute/verify/listing.h"

#include <gtest/gtest.h>

#include <vector>

#include "distribute/host_outcome.h"

namespace pdx {
namespace {

using namespace std::string_literals;

struct Seen {
  std::string name, digest;
  std::uint64_t size;
  bool hash;
};

template <class Parser = ListingParser>
Result<std::vector<Seen>> parse_all(const std::vector<std::string>& chunks,
                                    Parser parser = Parser()) {
  std::vector<Seen> seen;
  for (const auto& chunk : chunks) {
    TRY(parser.feed(chunk, [&](const ListingRecord& r) {
      seen.push_back({std::string(r.name), std::string(r.digest), r.size,
                      r.kind == ListingRecord::Kind::hash});
    }));
  }
  TRY(parser.end());
  return seen;
}

const std::string kHash(64, 'a');

TEST(Listing, ASymlinkIsItsNameThenItsTarget) {
  ListingParser parser;
  std::vector<std::pair<std::string, std::string>> links;
  std::string all = "l snap/model\0../../blobs/a b\0s 1 f\0"s;
  for (std::size_t cut = 0; cut <= all.size(); ++cut) {
    ListingParser p;
    links.clear();
    auto on = [&](const ListingRecord& r) {
      if (r.kind == ListingRecord::Kind::link) links.emplace_back(r.name, r.target);
    };
    ASSERT_TRUE(p.feed(all.substr(0, cut), on));
    ASSERT_TRUE(p.feed(all.substr(cut), on));
    ASSERT_TRUE(p.end());
    ASSERT_EQ(links.size(), 1u) << cut;
    EXPECT_EQ(links[0], (std::pair<std::string, std::string>{"snap/model", "../../blobs/a b"}));
  }
  EXPECT_FALSE(parser.feed("l ../x\0y\0"s, [](const ListingRecord&) {}));  // unsafe name
  ListingParser empty_target, cut_short;
  EXPECT_FALSE(empty_target.feed("l x\0\0"s, [](const ListingRecord&) {}));
  ASSERT_TRUE(cut_short.feed("l x\0"s, [](const ListingRecord&) {}));
  EXPECT_FALSE(cut_short.end());  // its target never came
}

TEST(Listing, SizesAndHashesAcrossChunks) {
  auto seen = parse_all({"s 12 a/b c\0s 0 d"s, "\n\0"s + kHash + "  ./a/b c\0"s});
  ASSERT_TRUE(seen) << seen.error();
  ASSERT_EQ(seen->size(), 3u);
  EXPECT_EQ((*seen)[0].name, "a/b c");
  EXPECT_EQ((*seen)[0].size, 12u);
  EXPECT_EQ((*seen)[1].name, "d\n");
  EXPECT_TRUE((*seen)[2].hash);
  EXPECT_EQ((*seen)[2].name, "a/b c");
  EXPECT_EQ((*seen)[2].digest, kHash);
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

std::string entry(const std::string& name, EntryKind kind, std::uint64_t size = 0,
                  std::string digest = "") {
  return encode_frame(FrameType::entry, encode(Entry{name, kind, 0644, size, 0, digest}));
}
const std::string kTop = entry("", EntryKind::directory);
const std::string kEnd = encode_frame(FrameType::summary, encode(Summary{}));
const std::string kXxh3(32, 'b');

TEST(AgentListing, FilesAsSizeAndHashRecordsAcrossChunks) {
  std::string all = kTop + entry("d", EntryKind::directory) +
                    entry("d/a\nb -c", EntryKind::file, 12, kXxh3) + entry("l", EntryKind::other) +
                    entry("e", EntryKind::file, 0, "") + kEnd;
  for (std::size_t cut : {std::size_t{1}, std::size_t{7}, all.size() / 2}) {
    AgentListingParser parser(true);
    auto seen = parse_all({all.substr(0, cut), all.substr(cut)}, parser);
    ASSERT_TRUE(seen) << seen.error();
    ASSERT_EQ(seen->size(), 4u);
    EXPECT_EQ((*seen)[0].name, "d/a\nb -c");
    EXPECT_EQ((*seen)[0].size, 12u);
    EXPECT_FALSE((*seen)[0].hash);
    EXPECT_TRUE((*seen)[1].hash);
    EXPECT_EQ((*seen)[1].digest, kXxh3);
    EXPECT_EQ((*seen)[3].digest, "");  // the agent could not read it
  }
  AgentListingParser unhashed(false);
  auto seen = parse_all({kTop + entry("a", EntryKind::file, 1) + kEnd}, unhashed);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->size(), 1u);
}

TEST(AgentListing, SaysWhatTheListedPathIs) {
  for (auto kind : {EntryKind::directory, EntryKind::missing, EntryKind::file}) {
    AgentListingParser parser(false);
    ASSERT_TRUE(parser.feed(entry("", kind) + kEnd, [](const ListingRecord&) {}));
    EXPECT_TRUE(parser.end());
    EXPECT_EQ(parser.top(), kind);
  }
}

TEST(AgentListing, MalformedFramesAreRefused) {
  std::string file = entry("a", EntryKind::file, 1);
  for (std::string bad : std::vector<std::string>{
           "\x01xyz", file + kEnd, kTop + kTop + kEnd, kTop + entry("../a", EntryKind::file) + kEnd,
           kTop + entry("a", EntryKind::file, 1, std::string(64, 'a')) + kEnd, kTop + kEnd + file,
           kTop + encode_frame(FrameType::written, encode(Written{"a", 1})) + kEnd, kTop,
           kTop + file, (kTop + kEnd).substr(0, kTop.size() + 3), ""}) {
    auto seen = parse_all({bad}, AgentListingParser(true));
    ASSERT_FALSE(seen) << printable(bad);
    EXPECT_TRUE(seen.error().starts_with("malformed listing from the agent (")) << seen.error();
  }
}

TEST(AgentListing, NothingIsTakenAfterAnError) {
  AgentListingParser parser(false);
  int records = 0;
  auto count = [&](const ListingRecord&) { ++records; };
  EXPECT_FALSE(parser.feed("\x01", count));
  EXPECT_TRUE(parser.feed(kTop + entry("a", EntryKind::file) + kEnd, count));
  EXPECT_EQ(records, 0);
  EXPECT_TRUE(parser.end());  // the Error was feed's
}

}  // namespace
}  // namespace pdx
