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

std::vector<std::string> labels(const std::vector<Host>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h.label());
  return out;
}

std::string error_of(const std::string& path) {
  try {
    read_hostfile(path);
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
  EXPECT_EQ(labels(read_hostfile(path)), (Names{"node1", "node2", "node3"}));
}

TEST(ReadHostfile, CarriageReturnsAndNoFinalNewline) {
  auto path = temp_file("crlf", "a\r\nb\r\nc");
  EXPECT_EQ(labels(read_hostfile(path)), (Names{"a", "b", "c"}));
}

TEST(ReadHostfile, DeepSpeedSlots) {
  auto path = temp_file("deepspeed", "worker-1 slots=8\nworker-2 slots=4 max_slots=8\nworker-3\n");
  auto hosts = read_hostfile(path);
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].slots, 8);
  EXPECT_EQ(hosts[1].slots, 4);
  EXPECT_EQ(hosts[2].slots, 0);
}

TEST(ReadHostfile, MpiMaxSlotsSpelling) {
  auto hosts = read_hostfile(temp_file("mpi", "n1 max-slots=2 slots=2\n"));
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].slots, 2);
}

TEST(ReadHostfile, ExpressionsUserAndPort) {
  auto path = temp_file("expr", "gpu[01-02] slots=8\nroot@[::1]:2222\nu@n9:22,n10\nn[1-3],-n2\n");
  auto hosts = read_hostfile(path);
  EXPECT_EQ(labels(hosts),
            (Names{"gpu01", "gpu02", "root@[::1]:2222", "u@n9:22", "n10", "n1", "n3"}));
  EXPECT_EQ(hosts[1].slots, 8);
}

TEST(ReadHostfile, FirstAppearanceKeepsItsSlots) {
  auto hosts = read_hostfile(temp_file("dup", "a slots=2\na slots=4\n"));
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].slots, 2);
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
  auto host = temp_file("host", "ok\nbad;host\n");
  EXPECT_EQ(error_of(host), host +
                                ":2: illegal character ';' in host name 'bad;host' "
                                "(use letters, digits, '-', '.', '_')");
  auto range = temp_file("range", "n[3-1]\n");
  EXPECT_EQ(error_of(range), range + ":1: reversed range '3-1' in 'n[3-1]'");
  auto nested = temp_file("nested", "^/etc/hosts\n");
  EXPECT_EQ(error_of(nested), nested + ":1: '^FILE' is not allowed inside a hostfile");
}

}  // namespace
}  // namespace pdx
