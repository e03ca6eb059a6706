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

// Hosts of the local transport (under -R exec the same machine), `names` as written.
std::vector<Host> hosts_named(const std::vector<std::string>& names) {
  std::vector<Host> hosts;
  for (const auto& name : names) hosts.push_back(Host{name, "", 0, 0});
  return hosts;
}

// Pulls `remotes` from every host (over the local transport: the hosts' tar over "ssh").
std::vector<HostOutcome> pull_with(const std::vector<std::string>& remotes,
                                   const std::string& local,
                                   const std::vector<std::string>& names = {"u", "h1"},
                                   bool suffix = false) {
  auto transport = make_local_transport();
  PullOptions options;
  options.remotes = remotes;
  options.host_suffix = suffix;
  options.local_dir = local;
  options.unpacker = kTarUnpack;
  options.fanout = 4;
  options.host_directories = !suffix;
  options.data_via = DataVia::ssh;  // the local transport is no TCP: pulled over its "ssh"
  JobTemplate tmpl;
  tmpl.substitute = false;
  return pull(*transport, hosts_named(names), tmpl, options).hosts;
}

TEST(Pull, EveryHostIntoItsOwnDirectory) {
  test::TempDir dir;
  test::write_file(dir / "src/f", "data");
  test::write_file(dir / "src/tree/x", "x");
  auto outcomes = pull_with({dir / "src/f", dir / "src/tree"}, dir / "out", {"::1", "h1"});
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].what, "pulled");
  EXPECT_EQ(outcomes[1].status, 0);
  EXPECT_EQ(test::read_file(dir / "out/%3A%3A1/f"), "data");
  EXPECT_EQ(test::read_file(dir / "out/h1/tree/x"), "x");
}

TEST(Pull, SuffixedNamesIntoOneDirectory) {  // rpdcp: DIR/NAME.HOST
  test::TempDir dir;
  test::write_file(dir / "src/f", "data");
  test::write_file(dir / "src/tree/x", "x");
  auto outcomes = pull_with({dir / "src/f", dir / "src/tree"}, dir / "out", {"n1", "a&b|c"}, true);
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
  auto outcomes = pull_with({dir / "src/f", dir / "src/none"}, dir / "out", {"u"});
  EXPECT_EQ(outcomes[0].status, 1);
  EXPECT_NE(outcomes[0].what.find("./none: Cannot stat"), std::string::npos) << outcomes[0].what;
  EXPECT_EQ(test::read_file(dir / "out/u/f"), "data");
}

TEST(Pull, JsonCountsTheBytesReceived) {
  test::TempDir dir;
  test::write_file(dir / "src/f", "data");
  auto outcomes = pull_with({dir / "src/f"}, dir / "out", {"a"});
  EXPECT_EQ(outcome_json({"a"}, outcomes),
            "{\"host\":\"a\",\"status\":0,\"bytes\":10240,\"error\":null}\n");
}

}  // namespace
}  // namespace pdx
