#include "distribute/verify/host_tally.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

ListingRecord sized(std::string_view name, std::uint64_t size) {
  return {ListingRecord::Kind::size, name, size, {}};
}
ListingRecord hashed(std::string_view name, std::string_view digest) {
  return {ListingRecord::Kind::hash, name, 0, digest};
}

Reference reference(bool hashes) {
  Reference ref;
  ref.has_hashes = hashes;
  ref.files = {{"a", 1, std::string(32, '1'), std::string(64, '1')},
               {"b", 2, std::string(32, '2'), std::string(64, '2')},
               {"c", 3, std::string(32, '3'), std::string(64, '3')}};
  for (std::size_t i = 0; i < ref.files.size(); ++i) ref.index.emplace(ref.files[i].name, i);
  ref.file_count = 3;
  ref.bytes = 6;
  return ref;
}

ListingRecord linked(std::string_view name, std::string_view target) {
  return {ListingRecord::Kind::link, name, 0, {}, target};
}

TEST(HostTally, ComparesSymlinksByTarget) {
  Reference ref = reference(false);
  ref.files.push_back({"latest", 0, {}, {}, "v3"});
  ref.files.push_back({"model", 0, {}, {}, "../blobs/x"});
  ref.files.push_back({"gone", 0, {}, {}, "v1"});
  for (std::size_t i = 3; i < ref.files.size(); ++i) ref.index.emplace(ref.files[i].name, i);
  HostTally same(&ref), other(&ref);
  for (auto r : {sized("a", 1), sized("b", 2), sized("c", 3), linked("latest", "v3"),
                 linked("model", "../blobs/x"), linked("gone", "v1")})
    same.add(r);
  EXPECT_EQ(same.outcome().what, "match: 3 files, 3 symlinks, 6 B");
  // latest elsewhere, model a file, a file "c" a symlink, an extra symlink, gone missing.
  for (auto r : {sized("a", 1), sized("b", 2), linked("c", "a"), linked("latest", "v2"),
                 sized("model", 0), linked("new", "v3")})
    other.add(r);
  EXPECT_EQ(other.outcome().what,
            "differs: 1 missing (gone), 1 extra (new), 3 changed (c, latest, model)");
}

TEST(HostTally, MatchesTheReference) {
  Reference ref = reference(false);
  HostTally tally(&ref);
  for (auto r : {sized("c", 3), sized("a", 1), sized("b", 2)}) tally.add(r);
  HostOutcome o = tally.outcome();
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.what, "match: 3 files, 6 B");
}

TEST(HostTally, SaysWhatIsMissingExtraAndChanged) {
  Reference ref = reference(false);
  HostTally tally(&ref);
  for (auto r : {sized("a", 9), sized("x\n", 1)}) tally.add(r);
  HostOutcome o = tally.outcome();
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.what, "differs: 2 missing (b, c), 1 extra (x\\n), 1 changed (a)");
  EXPECT_EQ(o.figures.object(),
            "{\"files\":2,\"bytes\":10,\"result\":\"differs\",\"missing\":2,"
            "\"missing_names\":[\"b\",\"c\"],\"extra\":1,\"extra_names\":[\"x\\n\"],"
            "\"changed\":1,\"changed_names\":[\"a\"]}");
}

TEST(HostTally, ShowsTheFirstFewNames) {
  Reference ref = reference(false);
  HostTally tally(&ref);
  for (auto name : {"e", "f", "g", "h"}) tally.add(sized(name, 0));
  EXPECT_EQ(tally.outcome().what, "differs: 3 missing (a, b, c), 4 extra (e, f, g, ...)");
}

TEST(HostTally, HashChangedAtTheSameSize) {
  Reference ref = reference(true);
  HostTally tally(&ref);
  for (auto r : {sized("a", 1), sized("b", 2), sized("c", 3)}) tally.add(r);
  tally.add(hashed("a", ref.files[0].xxh3));
  tally.add(hashed("b", std::string(32, 'f')));
  tally.add(hashed("c", ref.files[2].xxh3));
  EXPECT_EQ(tally.outcome().what, "differs: 1 changed (b)");
}

TEST(HostTally, ComparesTheDigestOfItsKind) {
  Reference ref = reference(true);
  HostTally posix(&ref, FileDigest::sha256), agent(&ref, FileDigest::xxh3);
  for (auto* tally : {&posix, &agent})
    for (auto r : {sized("a", 1), sized("b", 2), sized("c", 3)}) tally->add(r);
  for (const auto& f : ref.files) {
    posix.add(hashed(f.name, f.sha256));
    agent.add(hashed(f.name, f.sha256));  // not its kind: every file changed
  }
  EXPECT_EQ(posix.outcome().what, "match: 3 files, 6 B");
  EXPECT_EQ(agent.outcome().what, "differs: 3 changed (a, b, c)");
  HostTally unreadable(&ref);  // the agent could not read a file: no digest
  for (auto r : {sized("a", 1), sized("b", 2), sized("c", 3)}) unreadable.add(r);
  unreadable.add(hashed("a", ""));
  EXPECT_EQ(unreadable.outcome().what, "differs: 1 changed (a)");
}

TEST(HostTally, ManifestComparesCounts) {
  Reference ref;
  ref.has_names = false;
  ref.file_count = 2;
  ref.bytes = 3;
  HostTally same(&ref), fewer(&ref);
  for (auto r : {sized("a", 1), sized("b", 2)}) same.add(r);
  fewer.add(sized("a", 1));
  EXPECT_EQ(same.outcome().what, "match: 2 files, 3 B");
  EXPECT_EQ(same.outcome().figures.object(), "{\"files\":2,\"bytes\":3,\"result\":\"match\"}");
  EXPECT_EQ(fewer.outcome().what, "differs: 1 file, 1 B; the manifest says 2 files, 3 B");
}

TEST(HostTally, WithoutReferenceTheDigestIgnoresOrder) {
  HostTally one(nullptr), two(nullptr), other(nullptr);
  for (auto r : {sized("a", 1), sized("b", 2)}) one.add(r);
  for (auto r : {sized("b", 2), sized("a", 1)}) two.add(r);
  for (auto r : {sized("a", 2), sized("b", 1)}) other.add(r);
  EXPECT_EQ(one.outcome().what, two.outcome().what);
  EXPECT_NE(one.outcome().what, other.outcome().what);
  EXPECT_TRUE(one.outcome().what.starts_with("2 files, 3 B, listing "));
}

}  // namespace
}  // namespace pdx
