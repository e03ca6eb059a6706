#include "core/hostfile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/error.h"

namespace pdx {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const char* base = std::getenv("PDX_TEST_TMP");
  auto dir = std::filesystem::path(base ? base : "/tmp") / "hostfile_test";
  std::filesystem::create_directories(dir);
  auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

/// Each host line of path as "EXPRESSION" or "EXPRESSION slots=N", then "@FILE:LINE".
std::vector<std::string> lines(const std::string& path) {
  std::vector<std::string> out;
  read_hostfile(path, [&](const HostfileLine& line) {
    std::string text(line.hosts);
    if (line.slots != 0) text += " slots=" + std::to_string(line.slots);
    out.push_back(text + " @" + line.where.substr(path.size() + 1));
  });
  return out;
}

std::string error_of(const std::string& path) {
  try {
    read_hostfile(path, [](const HostfileLine&) {});
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << path;
  return {};
}

using Names = std::vector<std::string>;

TEST(ReadHostfile, OneHostPerLineWithCommentsAndBlankLines) {
  auto path =
      temp_file("plain", "# cluster A\nnode1\n\n  node2  \nnode3 # spare\n\t\n#node4\nnode1\n");
  EXPECT_EQ(lines(path), (Names{"node1 @2", "node2 @4", "node3 @5", "node1 @8"}));
}

TEST(ReadHostfile, CarriageReturnsAndNoFinalNewline) {
  auto path = temp_file("crlf", "a\r\nb\r\nc");
  EXPECT_EQ(lines(path), (Names{"a @1", "b @2", "c @3"}));
}

TEST(ReadHostfile, DeepSpeedSlots) {
  auto path = temp_file("deepspeed", "worker-1 slots=8\nworker-2 slots=4 max_slots=8\nworker-3\n");
  EXPECT_EQ(lines(path), (Names{"worker-1 slots=8 @1", "worker-2 slots=4 @2", "worker-3 @3"}));
}

TEST(ReadHostfile, MpiMaxSlotsSpelling) {
  EXPECT_EQ(lines(temp_file("mpi", "n1 max-slots=2 slots=2\n")), (Names{"n1 slots=2 @1"}));
}

TEST(ReadHostfile, ExpressionsAreLeftToTheCaller) {
  auto path = temp_file("expr", "gpu[01-02] slots=8\nroot@[::1]:2222\nu@n9:22,n10\nn[1-3],-n2\n");
  EXPECT_EQ(lines(path), (Names{"gpu[01-02] slots=8 @1", "root@[::1]:2222 @2", "u@n9:22,n10 @3",
                                "n[1-3],-n2 @4"}));
}

TEST(ReadHostfile, WhatTheCallerThrowsGoesThrough) {
  auto path = temp_file("throws", "a\nb\n");
  int calls = 0;
  EXPECT_THROW(read_hostfile(path,
                             [&](const HostfileLine&) {
                               ++calls;
                               throw UsageError("stop");
                             }),
               UsageError);
  EXPECT_EQ(calls, 1);
}

TEST(ReadHostfileError, MissingUnreadableOrDirectory) {
  EXPECT_EQ(error_of("/nonexistent/hosts"),
            "cannot read hostfile '/nonexistent/hosts': No such file or directory");
  auto dir = std::filesystem::path(temp_file("x", "")).parent_path().string();
  EXPECT_EQ(error_of(dir), "cannot read hostfile '" + dir + "': is a directory");
}

TEST(ReadHostfileError, EmptyOfHosts) {
  auto empty = temp_file("empty", "");
  EXPECT_EQ(error_of(empty), "hostfile '" + empty + "' names no hosts");
  auto comments = temp_file("comments", "# nothing\n\n   # here\n");
  EXPECT_EQ(error_of(comments), "hostfile '" + comments + "' names no hosts");
}

TEST(ReadHostfileError, BadLinesNameFileAndLine) {
  auto unknown = temp_file("unknown", "a\nb slots=8 gpus=8\n");
  EXPECT_EQ(error_of(unknown),
            unknown + ":2: unknown 'gpus=8' (expected 'host [slots=N] [max_slots=N]')");
  auto word = temp_file("word", "a b\n");
  EXPECT_EQ(error_of(word), word + ":1: unknown 'b' (expected 'host [slots=N] [max_slots=N]')");
  auto slots = temp_file("slots", "a slots=0\n");
  EXPECT_EQ(error_of(slots), slots + ":1: bad 'slots=0' (expected N >= 1)");
  auto slots_text = temp_file("slots_text", "a slots=x\n");
  EXPECT_EQ(error_of(slots_text), slots_text + ":1: bad 'slots=x' (expected N >= 1)");
  auto max = temp_file("max", "a max_slots=\n");
  EXPECT_EQ(error_of(max), max + ":1: bad 'max_slots=' (expected N >= 1)");
  auto nested = temp_file("nested", "^/etc/hosts\n");
  EXPECT_EQ(error_of(nested), nested + ":1: '^FILE' is not allowed inside a hostfile");
}

}  // namespace
}  // namespace pdx
