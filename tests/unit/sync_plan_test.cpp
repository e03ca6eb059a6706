#include "distribute/sync/sync_plan.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

ExcludeRules rules(const std::vector<std::string>& patterns) {
  return *ExcludeRules::parse(patterns);
}

// SRC "src" with src/a, src/sub/b, src/sub/c.o, src/cache/d: as scan_sources lays it out.
PushSources tree() {
  PushSources s;
  s.into.dirs = {{"src"}, {"src/cache"}, {"src/sub"}};
  for (const char* f : {"src/a", "src/cache/d", "src/sub/b", "src/sub/c.o"})
    s.into.files.push_back(LocalFile{std::string("/here/") + f, f});
  s.tops = {"src"};
  return s;
}

HostListing listing(const std::vector<std::pair<std::string, EntryKind>>& entries) {
  HostListing l;
  l.dest = Entry{"", EntryKind::directory};
  for (const auto& [name, kind] : entries) l.entries[name] = Entry{name, kind};
  return l;
}

std::vector<std::string> names(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.name);
  return out;
}

using enum EntryKind;

TEST(SyncPlanTest, ExcludedNamesLeaveBothLayouts) {
  PushSources s = tree();
  exclude_sources(s, rules({"*.o", "cache/"}));
  ASSERT_EQ(s.into.dirs.size(), 2u);
  EXPECT_EQ(s.into.dirs[1].name, "src/sub");
  std::vector<std::string> files;
  for (const auto& f : s.into.files) files.push_back(f.name);
  EXPECT_EQ(files, (std::vector<std::string>{"src/a", "src/sub/b"}));
}

TEST(SyncPlanTest, AnExcludedLoneFileLeavesNothingToSend) {
  PushSources s;
  s.into.files.push_back(LocalFile{"/here/model.bin", "model.bin"});
  s.as.emplace();
  s.as->files.push_back(LocalFile{"/here/model.bin", ""});
  exclude_sources(s, rules({"*.bin"}));
  EXPECT_TRUE(s.into.files.empty());
  EXPECT_FALSE(s.as);
  PushSources kept = tree();
  exclude_sources(kept, rules({}));
  EXPECT_EQ(kept.into.files.size(), 4u);
}

TEST(SyncPlanTest, ExtrasInTheSourcesDirectoriesGoDeepestFirst) {
  HostListing l = listing({{"src", directory},
                           {"src/a", file},
                           {"src/old", file},
                           {"src/gone", directory},
                           {"src/gone/x", file},
                           {"src/gone/y", directory},
                           {"src/gone/y/z", other},
                           {"src/sub", directory},
                           {"src/sub/b", file},
                           {"other", file},           // outside the sources' tops: not listed
                           {"src/a/inside", file}});  // under a file of the sources: kept
  EXPECT_EQ(names(deletions(tree(), l, rules({}))),
            (std::vector<std::string>{"src/old", "src/gone/y/z", "src/gone/y", "src/gone/x",
                                      "src/gone"}));
}

TEST(SyncPlanTest, ExcludedNamesAndTheDirectoriesHoldingThemAreNotDeleted) {
  HostListing l = listing({{"src", directory},
                           {"src/x.o", file},
                           {"src/gone", directory},
                           {"src/gone/keep.o", file},
                           {"src/gone/drop", file},
                           {"src/cache", directory},
                           {"src/cache/e", file}});
  PushSources s = tree();
  ExcludeRules r = rules({"*.o", "/src/cache/"});
  exclude_sources(s, r);
  EXPECT_EQ(names(deletions(s, l, r)), (std::vector<std::string>{"src/gone/drop"}));
}

TEST(SyncPlanTest, WhatTheSourcesHaveButDoNotSendIsNotDeleted) {
  // src/lib.so is a symlink here (skipped by push): the host's lib.so, and what a directory of
  // that name holds, stay.
  HostListing l = listing({{"src", directory},
                           {"src/lib.so", file},
                           {"src/dev", directory},
                           {"src/dev/x", file},
                           {"src/old", file}});
  PushSources s = tree();
  s.skipped = {"/here/src/lib.so", "/here/src/dev"};
  s.skipped_names = {"src/lib.so", "src/dev"};
  EXPECT_EQ(names(deletions(s, l, rules({}))), (std::vector<std::string>{"src/old"}));
}

TEST(SyncPlanTest, ADirSourceScopesDeletionsToDestItself) {
  PushSources s;
  s.into.files.push_back(LocalFile{"/here/src/a", "a"});
  s.tops = {"."};
  HostListing l = listing({{"a", file}, {"b", file}, {"d", directory}, {"d/e", file}});
  EXPECT_EQ(names(deletions(s, l, rules({}))), (std::vector<std::string>{"d/e", "d", "b"}));
}

TEST(SyncPlanTest, NothingIsDeletedWhenDestIsNotADirectory) {
  HostListing l = listing({{"src/old", file}});
  l.dest.kind = missing;
  EXPECT_TRUE(deletions(tree(), l, rules({})).empty());
  l.dest.kind = file;  // one file SRC landing as DEST
  EXPECT_TRUE(deletions(tree(), l, rules({})).empty());
}

}  // namespace
}  // namespace pdx
