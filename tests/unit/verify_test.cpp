#include "distribute/verify.h"

#include <gtest/gtest.h>

#include "distribute/remote_commands.h"
#include "scratch.h"
#include "transport/local_transport.h"

namespace pdx {
namespace {

ListingRecord sized(std::string_view name, std::uint64_t size) {
  return {ListingRecord::Kind::size, name, size, {}};
}
ListingRecord hashed(std::string_view name, std::string_view sha) {
  return {ListingRecord::Kind::hash, name, 0, sha};
}

Reference reference(bool hashes) {
  Reference ref;
  ref.has_hashes = hashes;
  ref.files = {{"a", 1, std::string(64, '1')},
               {"b", 2, std::string(64, '2')},
               {"c", 3, std::string(64, '3')}};
  for (std::size_t i = 0; i < ref.files.size(); ++i) ref.index.emplace(ref.files[i].name, i);
  ref.file_count = 3;
  ref.bytes = 6;
  return ref;
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
  std::string other(64, 'f');
  tally.add(hashed("a", ref.files[0].sha256));
  tally.add(hashed("b", other));
  tally.add(hashed("c", ref.files[2].sha256));
  EXPECT_EQ(tally.outcome().what, "differs: 1 changed (b)");
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

// Hosts through -R exec, each printing its listing.
std::vector<HostOutcome> verify_printing(const std::vector<std::string>& listings,
                                         const Reference* ref) {
  auto transport = make_local_transport();
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < listings.size(); ++i) {
    Job job;
    job.label = "h" + std::to_string(i);
    job.index = i;
    job.command = listings[i];
    jobs.push_back(job);
  }
  return verify(*transport, jobs, {"/d", ref, 4});
}

TEST(Verify, OddHostStandsOutWithoutReference) {
  std::string same = "printf 's 1 a\\0s 2 b\\0'";
  auto outcomes = verify_printing({same, same, "printf 's 1 a\\0'", same}, nullptr);
  EXPECT_EQ(outcomes[0].status, 0);
  EXPECT_EQ(outcomes[2].status, 1);
  EXPECT_EQ(outcomes[0].what, outcomes[3].what);
  EXPECT_NE(outcomes[0].what, outcomes[2].what);
  std::string json = outcome_json({"a", "b", "c", "d"}, outcomes);
  EXPECT_NE(json.find("\"host\":\"a\",\"status\":0,\"files\":2,\"bytes\":3,\"listing\":"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"result\":\"match\",\"error\":null}\n{\"host\":\"b\""), std::string::npos);
  EXPECT_NE(json.find("\"host\":\"c\",\"status\":1,\"files\":1"), std::string::npos);
  EXPECT_NE(json.find("\"result\":\"differs\",\"error\":null}\n{\"host\":\"d\""),
            std::string::npos);
}

TEST(Verify, FailuresOfTheListingAreNamed) {
  Reference ref = reference(false);
  auto outcomes =
      verify_printing({"exit 3", "printf 's x a\\0'", "echo 'find: d: denied' >&2; exit 1",
                       "printf 's 1 a\\0s 2 b\\0s 3 c\\0'"},
                      &ref);
  EXPECT_EQ(outcomes[0].what, "/d: no such directory");
  EXPECT_EQ(outcomes[0].error, "/d: no such directory");
  EXPECT_EQ(outcomes[0].status, 1);
  EXPECT_NE(outcomes[1].what.find("malformed listing"), std::string::npos);
  EXPECT_EQ(outcomes[2].what, "find: d: denied");
  EXPECT_EQ(outcomes[3].what, "match: 3 files, 6 B");
}

TEST(Verify, TheRealCommandListsAndHashes) {
  test::TempDir dir;
  test::write_file(dir / "d/x y", "hello");
  test::write_file(dir / "d/sub/-z", "");
  auto ref = local_reference(dir / "d", true);
  ASSERT_TRUE(ref);
  auto outcomes = verify_printing({verify_command(dir / "d", true)}, &*ref);
  EXPECT_EQ(outcomes[0].what, "match: 2 files, 5 B");
  test::write_file(dir / "d/x y", "jello");
  outcomes = verify_printing({verify_command(dir / "d", true)}, &*ref);
  EXPECT_EQ(outcomes[0].what, "differs: 1 changed (x y)");
}

TEST(Verify, ParallelHashBatchesDoNotInterleave) {
  test::TempDir dir;
  std::string long_name(200, 'n');
  for (int i = 0; i < 2000; ++i)
    test::write_file(dir / ("d/" + std::to_string(i % 10) + "/" + long_name + std::to_string(i)),
                     "x");
  auto ref = local_reference(dir / "d", true);
  ASSERT_TRUE(ref);
  auto outcomes = verify_printing({verify_command(dir / "d", true)}, &*ref);
  EXPECT_EQ(outcomes[0].what, "match: 2000 files, 2.0 KiB");
}

}  // namespace
}  // namespace pdx
