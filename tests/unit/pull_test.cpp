#include "distribute/pull/pull.h"

#include <gtest/gtest.h>

#include "distribute/remote_commands.h"
#include "scratch.h"
#include "transport/local_transport.h"

namespace pdx {
namespace {

// GNU tar standing in for `pdx unpack`: sh -c SCRIPT sh --no-same-owner -C DIR -
const std::vector<std::string> kTarUnpack = {"/bin/sh", "-c",
                                             "mkdir -p \"$3\" && exec tar -xf - -C \"$3\"", "sh"};

std::vector<HostOutcome> pull_with(const std::vector<std::string>& commands,
                                   const std::string& local) {
  auto transport = make_local_transport();
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    Job job;
    job.label = i == 0 ? "u@[::1]:22" : "h" + std::to_string(i);
    job.index = i;
    job.command = commands[i];
    jobs.push_back(job);
  }
  return pull(*transport, jobs, {local, kTarUnpack, 4});
}

TEST(Pull, EveryHostIntoItsOwnDirectory) {
  test::TempDir dir;
  test::write_file(dir / "src/f", "data");
  test::write_file(dir / "src/tree/x", "x");
  std::string command = *pull_command({dir / "src/f", dir / "src/tree"});
  auto outcomes = pull_with({command, command}, dir / "out");
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].what, "pulled");
  EXPECT_EQ(outcomes[1].status, 0);
  EXPECT_EQ(test::read_file(dir / "out/u@%5B%3A%3A1%5D%3A22/f"), "data");
  EXPECT_EQ(test::read_file(dir / "out/h1/tree/x"), "x");
}

TEST(Pull, SuffixedNamesIntoOneDirectory) {  // rpdcp: DIR/NAME.HOST
  test::TempDir dir;
  test::write_file(dir / "src/f", "data");
  test::write_file(dir / "src/tree/x", "x");
  auto transport = make_local_transport();
  std::vector<Job> jobs;
  for (std::string host : {"n1", "a&b|c"}) {
    Job job;
    job.label = host;
    job.index = jobs.size();
    job.command = *pull_command({dir / "src/f", dir / "src/tree"}, "." + host);
    jobs.push_back(job);
  }
  PullOptions options{dir / "out", kTarUnpack, 4, false};
  auto outcomes = pull(*transport, jobs, options);
  EXPECT_EQ(outcomes[0].what, "pulled");
  EXPECT_EQ(outcomes[1].what, "pulled");
  EXPECT_EQ(test::read_file(dir / "out/f.n1"), "data");
  EXPECT_EQ(test::read_file(dir / "out/tree.n1/x"), "x");
  EXPECT_EQ(test::read_file(dir / "out/f.a&b|c"), "data");
  EXPECT_EQ(test::read_file(dir / "out/tree.a&b|c/x"), "x");
}

TEST(Pull, TheHostsComplaintNamesTheFile) {
  test::TempDir dir;
  test::write_file(dir / "src/f", "data");
  std::string command = *pull_command({dir / "src/f", dir / "src/none"});
  auto outcomes = pull_with({command, "echo nope >&2; exit 5"}, dir / "out");
  EXPECT_EQ(outcomes[0].status, 1);
  EXPECT_NE(outcomes[0].what.find("./none: Cannot stat"), std::string::npos) << outcomes[0].what;
  EXPECT_EQ(test::read_file(dir / "out/u@%5B%3A%3A1%5D%3A22/f"), "data");
  EXPECT_EQ(outcomes[1].what, "nope");
  EXPECT_EQ(outcomes[1].error, "nope");
  EXPECT_FALSE(std::filesystem::exists(dir / "out/h1"));  // nothing came: nothing made
}

TEST(Pull, JsonCountsTheBytesReceived) {
  test::TempDir dir;
  auto outcomes = pull_with({"head -c 10240 /dev/zero", "printf ''"}, dir / "out");
  EXPECT_EQ(outcome_json({"a", "b"}, outcomes),
            "{\"host\":\"a\",\"status\":0,\"bytes\":10240,\"error\":null}\n"
            "{\"host\":\"b\",\"status\":0,\"bytes\":0,\"error\":null}\n");
}

TEST(Pull, WhatTheUnpackerRefusesFailsTheHost) {
  test::TempDir dir;
  auto outcomes = pull_with({"echo garbage"}, dir / "out");
  EXPECT_EQ(outcomes[0].status, 1);
  EXPECT_NE(outcomes[0].what, "pulled");
}

}  // namespace
}  // namespace pdx
