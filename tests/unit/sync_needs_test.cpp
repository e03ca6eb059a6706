#include "distribute/sync/sync_needs.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

// SRC "src" with src/a, src/b, src/c and the directory src/d, as scan_sources lays it out.
PushSources tree() {
  PushSources s;
  s.into.dirs = {{"src"}, {"src/d"}};
  for (const char* f : {"src/a", "src/b", "src/c"})
    s.into.files.push_back(LocalFile{std::string("/here/") + f, f, 0644, 7, 0, 100});
  s.tops = {"src"};
  return s;
}

OldFile old(OldState state, std::uint64_t size = 0) {
  OldFile f{state, {}};
  f.signature.size = size;
  return f;
}

TEST(SyncNeedsTest, EveryFileAndDirectoryIsAskedAndDestItselfForALoneFile) {
  PushSources s = tree();
  auto asked = signature_requests(s, true);
  ASSERT_EQ(asked.size(), 5u);
  EXPECT_EQ(asked[0], (SignatureRequest{"src/a", 100, 7, true}));
  EXPECT_EQ(asked[3], (SignatureRequest{"src", 0, 0, false, EntryKind::directory, 0755}));
  s.as = Layout{{}, {LocalFile{"/here/f", "", 0644, 9, 0, 5}}, {}};
  asked = signature_requests(s, false);
  EXPECT_EQ(asked.back(), (SignatureRequest{"", 5, 9, false}));
}

TEST(SyncNeedsTest, ChangedFilesAreDeltasMissingOnesAndDirectoriesGoWhole) {
  PushSources s = tree();
  std::vector<OldFile> answers = {old(OldState::changed, 42), old(OldState::same),
                                  old(OldState::missing), old(OldState::same),
                                  old(OldState::missing)};
  SyncedHost host;
  HostNeeds needs = needs_of(s, answers, false, host);
  ASSERT_EQ(needs.deltas.files.size(), 1u);
  EXPECT_EQ(needs.deltas.files[0].first, 0u);
  EXPECT_EQ(needs.deltas.files[0].second.size, 42u);
  EXPECT_FALSE(needs.deltas.as);
  EXPECT_EQ(needs.whole.files, (std::vector<std::size_t>{2}));
  // src/d is missing; src is the same but its contents change: its mtime is set again after.
  EXPECT_EQ(needs.whole.dirs, (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(host.to_patch.empty());
}

TEST(SyncNeedsTest, SymlinksAndDirectoriesAreAskedWhetherTheSame) {
  PushSources s = tree();
  s.into.dirs[1].mode = 0700;
  s.into.dirs[1].mtime_sec = 99;
  s.into.links = {{"/here/src/latest", "src/latest", "v3"}, {"/here/src/d/l", "src/d/l", "x"}};
  auto asked = signature_requests(s, true);
  ASSERT_EQ(asked.size(), 7u);
  EXPECT_EQ(asked[4], (SignatureRequest{"src/d", 0, 99, false, EntryKind::directory, 0700}));
  EXPECT_EQ(asked[5], (SignatureRequest{"src/latest", 0, 0, false, EntryKind::symlink, 0, "v3"}));
  // Files the same, src/d of another mode, latest the same, src/d/l pointing elsewhere.
  std::vector<OldFile> answers = {
      old(OldState::same),      old(OldState::same), old(OldState::same), old(OldState::same),
      old(OldState::directory), old(OldState::same), old(OldState::other)};
  SyncedHost host;
  HostNeeds needs = needs_of(s, answers, false, host);
  EXPECT_TRUE(needs.whole.files.empty());
  EXPECT_EQ(needs.whole.links, (std::vector<std::size_t>{1}));
  EXPECT_EQ(needs.whole.dirs, (std::vector<std::size_t>{1}));  // src/d: its mode, and l in it
  answers[4] = old(OldState::same);
  answers[6] = old(OldState::same);
  EXPECT_TRUE(needs_of(s, answers, false, host).whole.empty());
}

TEST(SyncNeedsTest, ADryRunNamesWhatWouldBePatchedAndSent) {
  PushSources s = tree();
  std::vector<OldFile> answers = {old(OldState::changed), old(OldState::other), old(OldState::same),
                                  old(OldState::directory), old(OldState::directory)};
  SyncedHost host;
  HostNeeds needs = needs_of(s, answers, true, host);
  EXPECT_TRUE(needs.deltas.files.empty());
  EXPECT_EQ(host.to_patch, (std::vector<std::string>{"src/a"}));
  EXPECT_EQ(host.to_send, (std::vector<std::string>{"src/b"}));
}

TEST(SyncNeedsTest, AFailedPatchGoesWholeAndAnotherFailureIsTheHosts) {
  PushSources s = tree();
  std::vector<OldFile> answers = {old(OldState::changed), old(OldState::changed),
                                  old(OldState::missing), old(OldState::directory),
                                  old(OldState::directory)};
  SyncedHost host;
  HostNeeds needs = needs_of(s, answers, false, host);
  resend_failed(s, "dest/h1", {{"dest/h1/src/b", "changed while read"}, {"dest/h1", "no space"}},
                needs, host);
  EXPECT_EQ(needs.whole.files, (std::vector<std::size_t>{1, 2}));
  ASSERT_EQ(host.failed.size(), 1u);
  EXPECT_EQ(host.failed[0].path, "dest/h1");
}

}  // namespace
}  // namespace pdx
