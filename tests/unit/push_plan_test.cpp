#include "distribute/push/push_plan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "hash/xxh3.h"
#include "tests/unit/digests.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::xxh3_of;

std::string listing_reply(const std::vector<Entry>& entries) {
  std::string s;
  for (const auto& e : entries) s += encode_frame(FrameType::entry, encode(e));
  return s + encode_frame(FrameType::summary, encode(Summary{}));
}

HostListing listing(const std::vector<Entry>& entries) {
  auto l = parse_listing(listing_reply(entries));
  EXPECT_TRUE(l.ok()) << l.error();
  return *l;
}

TEST(PushPlan, OneFileIntoOrAs) {
  test::TempDir dir;
  test::write_file(dir / "f", "abc");
  auto s = scan_sources({dir / "f"}, "/dest");
  ASSERT_TRUE(s.ok()) << s.error();
  ASSERT_EQ(s->into.files.size(), 1u);
  EXPECT_EQ(s->into.files[0].name, "f");
  ASSERT_TRUE(s->as);
  EXPECT_EQ(s->as->files[0].name, "");

  auto missing = plan_host(*s, listing({{"", EntryKind::missing}}), "/dest");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->into);
  auto dir_there = plan_host(*s, listing({{"", EntryKind::directory}}), "/dest");
  ASSERT_TRUE(dir_there.ok());
  EXPECT_TRUE(dir_there->into);
  EXPECT_EQ(dir_there->files, std::vector<std::size_t>{0});
}

TEST(PushPlan, ADirectoryAlwaysGoesInto) {  // as rsync: a re-run must not nest it
  test::TempDir dir;
  test::write_file(dir / "t/a", "1");
  auto s = scan_sources({dir / "t"}, "/dest");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->as);
  auto plan = plan_host(*s, listing({{"", EntryKind::missing}}), "/dest");
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->into);
}

TEST(PushPlan, TrailingSlashMeansInto) {
  test::TempDir dir;
  test::write_file(dir / "f", "abc");
  auto s = scan_sources({dir / "f"}, "/dest/");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->as);
  auto plan = plan_host(*s, listing({{"", EntryKind::file}}), "/dest/");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().find("Not a directory"), std::string::npos);
}

TEST(PushPlan, TreeAndContents) {
  test::TempDir dir;
  test::write_file(dir / "t/a", "1");
  test::write_file(dir / "t/s/b", "22");
  auto s = scan_sources({dir / "t"}, "/dest/");
  ASSERT_TRUE(s.ok());
  std::vector<std::string> names;
  for (auto& f : s->into.files) names.push_back(f.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"t/a", "t/s/b"}));
  EXPECT_EQ(s->into.dirs.front().name, "t");

  auto contents = scan_sources({dir / "t/"}, "/dest/");
  ASSERT_TRUE(contents.ok());
  names.clear();
  for (auto& f : contents->into.files) names.push_back(f.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "s/b"}));
}

TEST(PushPlan, ASymlinkInATreeIsSentWithItsTarget) {
  test::TempDir dir;
  test::write_file(dir / "t/a", "1");
  ASSERT_EQ(::symlink("a", (dir / "t/link").c_str()), 0);
  ASSERT_EQ(::symlink("/nowhere/at all", (dir / "t/dangling").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir / "t/fifo").c_str(), 0600), 0);
  auto s = scan_sources({dir / "t"}, "/dest/");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->skipped, (std::vector<std::string>{dir / "t/fifo"}));
  ASSERT_EQ(s->into.links.size(), 2u);
  std::map<std::string, std::string> targets;
  for (const auto& l : s->into.links) targets[l.name] = l.target;
  EXPECT_EQ(targets, (std::map<std::string, std::string>{{"t/dangling", "/nowhere/at all"},
                                                         {"t/link", "a"}}));
  ASSERT_EQ(s->into.files.size(), 1u);
}

TEST(PushPlan, SafeLinksLeavesOutThoseOutOfTheSource) {
  test::TempDir dir;
  test::write_file(dir / "t/s/blobs/b", "1");
  ASSERT_EQ(::symlink("../blobs/b", (dir / "t/s/in").c_str()), 0);
  ASSERT_EQ(::symlink("../../x", (dir / "t/s/out").c_str()), 0);
  ASSERT_EQ(::symlink("/etc/hostname", (dir / "t/abs").c_str()), 0);
  auto s = scan_sources({dir / "t"}, "/dest/", Links::safe);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->into.links.size(), 1u);
  EXPECT_EQ(s->into.links[0].name, "t/s/in");
  std::sort(s->unsafe.begin(), s->unsafe.end());
  EXPECT_EQ(s->unsafe,
            (std::vector<std::string>{dir / "t/abs -> /etc/hostname", dir / "t/s/out -> ../../x"}));
  std::sort(s->skipped_names.begin(), s->skipped_names.end());
  EXPECT_EQ(s->skipped_names, (std::vector<std::string>{"t/abs", "t/s/out"}));
  EXPECT_NE(source_warnings(*s).find("t/abs -> /etc/hostname: symlink out of its source"),
            std::string::npos);
}

TEST(PushPlan, LeavesTree) {
  EXPECT_TRUE(leaves_tree("/abs", 3));
  EXPECT_TRUE(leaves_tree("..", 0));
  EXPECT_TRUE(leaves_tree("a/../../b", 0));
  EXPECT_TRUE(leaves_tree("", 0));
  EXPECT_FALSE(leaves_tree("../../blobs/x", 2));
  EXPECT_FALSE(leaves_tree("a/../b", 0));
  EXPECT_FALSE(leaves_tree("./v3", 0));
  EXPECT_TRUE(leaves_tree("../../../blobs/x", 2));
}

TEST(PushPlan, SymlinksMissingOrPointingElsewhereAreSent) {
  test::TempDir dir;
  ASSERT_EQ(::mkdir((dir / "t").c_str(), 0755), 0);
  for (const char* name : {"same", "other", "file", "missing"})
    ASSERT_EQ(::symlink("v3", (dir / "t/" + std::string(name)).c_str()), 0);
  auto s = scan_sources({dir / "t/"}, "/dest/");
  ASSERT_TRUE(s.ok());
  Entry same{"same", EntryKind::symlink, 0777, 2, 0, "", "v3"};
  Entry other{"other", EntryKind::symlink, 0777, 2, 0, "", "v2"};
  auto plan = plan_host(
      *s, listing({{"", EntryKind::directory}, same, other, {"file", EntryKind::file}}), "/dest/");
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> sent;
  for (auto i : plan->links) sent.push_back(s->into.links[i].name);
  std::sort(sent.begin(), sent.end());
  EXPECT_EQ(sent, (std::vector<std::string>{"file", "missing", "other"}));
}

TEST(PushPlan, DirectoriesOfAnotherModeOrMtimeOrWhoseContentsChange) {
  test::TempDir dir;
  test::write_file(dir / "t/keep/a", "1");
  test::write_file(dir / "t/mode/b", "2");
  test::write_file(dir / "t/content/c", "3");
  ASSERT_EQ(::chmod((dir / "t/mode").c_str(), 0700), 0);
  auto s = scan_sources({dir / "t"}, "/dest/");
  ASSERT_TRUE(s.ok());
  std::vector<Entry> have = {{"", EntryKind::directory}};
  for (const auto& d : s->into.dirs)
    have.push_back(
        {d.name, EntryKind::directory, d.name == "t/mode" ? 0755u : d.mode, 0, d.mtime_sec});
  for (const auto& f : s->into.files)
    have.push_back(
        {f.name, EntryKind::file, f.mode, f.size, f.name == "t/content/c" ? 1 : f.mtime_sec});
  auto plan = plan_host(*s, listing(have), "/dest/");
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> dirs;
  for (auto i : plan->dirs) dirs.push_back(s->into.dirs[i].name);
  std::sort(dirs.begin(), dirs.end());
  EXPECT_EQ(dirs, (std::vector<std::string>{"t/content", "t/mode"}));
  // Listed by find (%m, %T@): the same, for a push without the agent.
  auto by_find = plan_host(*s, listing(have), "/dest/", Lister::find);
  ASSERT_TRUE(by_find.ok());
  EXPECT_EQ(by_find->dirs, plan->dirs);
  EXPECT_EQ(by_find->files.size(), 1u);
}

TEST(PushPlan, SendsOnlyWhatDiffers) {
  test::TempDir dir;
  test::write_file(dir / "t/a", "1");
  test::write_file(dir / "t/b", "22");
  auto s = scan_sources({dir / "t/"}, "/dest/");
  ASSERT_TRUE(s.ok());
  const LocalFile* a = nullptr;
  const LocalFile* b = nullptr;
  for (auto& f : s->into.files) (f.name == "a" ? a : b) = &f;
  auto plan = plan_host(*s,
                        listing({{"", EntryKind::directory},
                                 {"a", EntryKind::file, 0644, a->size, a->mtime_sec},
                                 {"b", EntryKind::file, 0644, b->size, b->mtime_sec - 1}}),
                        "/dest/");
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->files.size(), 1u);
  EXPECT_EQ(s->into.files[plan->files[0]].name, "b");
}

TEST(PushPlan, ChecksumComparesContentsNotMtimes) {
  test::TempDir dir;
  test::write_file(dir / "t/a", "1");
  test::write_file(dir / "t/b", "22");
  test::write_file(dir / "t/c", "333");
  test::write_file(dir / "t/d", "4444");
  auto s = scan_sources({dir / "t/"}, "/dest/");
  ASSERT_TRUE(s.ok());
  auto file = [&](const std::string& name) -> LocalFile& {
    return *std::find_if(s->into.files.begin(), s->into.files.end(),
                         [&](auto& f) { return f.name == name; });
  };
  auto t = [&](const std::string& name) { return file(name).mtime_sec; };
  std::vector<std::pair<std::size_t, HostListing>> hosts;
  hosts.emplace_back(
      0, listing({{"", EntryKind::directory},
                  {"a", EntryKind::file, 0644, 1, t("a"), xxh3_of("X")},       // changed
                  {"b", EntryKind::file, 0600, 2, t("b") - 9, xxh3_of("22")},  // touched
                  {"c", EntryKind::file, 0644, 9, t("c"), xxh3_of("333")},     // other size
                  {"d", EntryKind::file, 0644, 4, t("d")}}));                  // not hashed there
  HostListing before_checksum = hosts[0].second;
  auto by_mtime = plan_host(*s, before_checksum, "/dest/");
  ASSERT_TRUE(by_mtime.ok());
  EXPECT_EQ(by_mtime->files.size(), 2u);  // b (mtime) and c (size): a and d look the same

  compare_contents(*s, hosts);
  EXPECT_EQ(file("a").digest, xxh3_of("1"));  // hashed: a host has a file of its size
  EXPECT_EQ(file("b").digest, xxh3_of("22"));
  EXPECT_EQ(file("c").digest, "");  // no host has one of its size: not hashed
  EXPECT_EQ(file("d").digest, "");  // no host hash to compare with
  auto plan = plan_host(*s, hosts[0].second, "/dest/");
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> sent;
  for (auto i : plan->files) sent.push_back(s->into.files[i].name);
  std::sort(sent.begin(), sent.end());
  EXPECT_EQ(sent, (std::vector<std::string>{"a", "c", "d"}));

  // The next wave's listings: what the first hashed is not read again.
  test::write_file(dir / "t/b", "33");
  compare_contents(*s, hosts);
  EXPECT_EQ(file("b").digest, xxh3_of("22"));
}

TEST(PushPlan, ChecksumOfOneFileWrittenAsDest) {
  test::TempDir dir;
  test::write_file(dir / "f", "abc");
  auto s = scan_sources({dir / "f"}, "/dest");
  ASSERT_TRUE(s.ok());
  std::vector<std::pair<std::size_t, HostListing>> hosts;
  hosts.emplace_back(0, listing({{"", EntryKind::file, 0644, 3, 1, xxh3_of("abc")}}));
  hosts.emplace_back(1, listing({{"", EntryKind::file, 0644, 3, 1, xxh3_of("abd")}}));
  compare_contents(*s, hosts);
  EXPECT_EQ(s->as->files[0].digest, xxh3_of("abc"));
  EXPECT_EQ(s->into.files[0].digest, "");  // no host has DEST/f: that layout is not used
  auto same = plan_host(*s, hosts[0].second, "/dest");
  auto other = plan_host(*s, hosts[1].second, "/dest");
  ASSERT_TRUE(same.ok() && other.ok());
  EXPECT_TRUE(same->empty());
  EXPECT_FALSE(same->into);
  EXPECT_EQ(other->files.size(), 1u);
}

TEST(PushPlan, MissingSourceIsBadInput) {
  auto s = scan_sources({"/nonexistent/x"}, "/d");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error_kind(), ErrorKind::bad_input);
  EXPECT_NE(s.error().find("/nonexistent/x"), std::string::npos);
}

TEST(PushPlan, BadListingsAreErrors) {
  EXPECT_FALSE(parse_listing("").ok());                                       // no summary
  EXPECT_FALSE(parse_listing(encode_frame(FrameType::summary, "")).ok());     // bad summary
  EXPECT_FALSE(parse_listing(listing_reply({{"a", EntryKind::file}})).ok());  // no "" first
  EXPECT_FALSE(parse_listing(listing_reply({{"", EntryKind::directory}}) + "x").ok());
  EXPECT_FALSE(parse_listing(encode_frame(FrameType::written, encode(Written{"a"}))).ok());
}

}  // namespace
}  // namespace pdx
