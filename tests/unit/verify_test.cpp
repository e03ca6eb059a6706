#include "distribute/verify/verify.h"

#include <gtest/gtest.h>

#include "agent/agent_protocol.h"
#include "distribute/remote_agent.h"
#include "distribute/remote_commands.h"
#include "fake_transport.h"
#include "hash/sha256.h"
#include "hash/xxh3.h"
#include "scratch.h"
#include "tests/unit/digests.h"
#include "transport/local_transport.h"

namespace pdx {
namespace {

using test::sha256_of;
using test::xxh3_of;

using namespace std::string_literals;
using test::FakeExec;
using test::FakeHost;
using test::FakeTransport;

FakeExec replying(std::string out, int status = 0, std::string err = "") {
  FakeExec e;
  e.out = std::move(out);
  e.exit_status = status;
  e.err = std::move(err);
  return e;
}

// What `pdx agent --list=DIR --under=. [--checksum]` replies for a directory holding `files`
// (name, contents), hashed when `hashed`.
FakeExec agent_listing(const std::vector<std::pair<std::string, std::string>>& files, bool hashed) {
  std::string out = encode_frame(FrameType::entry, encode(Entry{"", EntryKind::directory}));
  for (const auto& [name, data] : files)
    out += encode_frame(FrameType::entry, encode(Entry{name, EntryKind::file, 0644, data.size(), 0,
                                                       hashed ? xxh3_of(data) : ""}));
  return replying(out + encode_frame(FrameType::summary, encode(Summary{})));
}

std::vector<Host> hosts(std::size_t n) {
  std::vector<Host> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i].name = "h" + std::to_string(i);
  return all;
}

// What each command was: the agent's listing, its upload, or the POSIX listing.
std::vector<std::string> steps(const std::vector<std::string>& commands) {
  std::vector<std::string> names;
  for (const auto& c : commands)
    names.push_back(c.find(" agent ") != std::string::npos                    ? "agent"
                    : c.find("s='making the directory'") != std::string::npos ? "upload"
                    : c.starts_with("cd ")                                    ? "posix"
                                                                              : c);
  return names;
}

class VerifyHosts : public ::testing::Test {
 protected:
  VerifyHosts() {
    test::write_file(dir_ / "ref/a", "1");
    test::write_file(dir_ / "ref/b c", "22");
    options.remote_dir = "/d";
    options.agent = "/opt/pdx";
    options.fanout = 4;
  }
  Reference reference(bool hash) {
    auto made = local_reference(dir_ / "ref", hash);
    EXPECT_TRUE(made) << made.error();
    return std::move(*made);
  }
  // The POSIX listing of the same files: sizes, then with `hashed` their SHA-256s.
  static FakeExec posix_listing(bool hashed) {
    std::string out = "s 1 a\0s 2 b c\0"s;
    if (hashed) out += sha256_of("1") + "  ./a\0"s + sha256_of("22") + "  ./b c\0"s;
    return replying(out);
  }

  test::TempDir dir_;
  VerifyOptions options;
  const std::vector<std::pair<std::string, std::string>> files_ = {{"a", "1"}, {"b c", "22"}};
};

TEST_F(VerifyHosts, ThroughTheAgentOnOneSessionEach) {
  Reference ref = reference(true);
  options.reference = &ref;
  options.hash = true;
  FakeTransport transport([&](const Job& job) {
    if (job.index == 1)
      return FakeHost{{}, {}, {}, {agent_listing({{"a", "1"}, {"b c", "X!"}}, true)}};
    if (job.index == 2) return FakeHost{{}, {}, {}, {agent_listing({{"a", "1"}}, true)}};
    return FakeHost{{}, {}, {}, {agent_listing(files_, true)}};
  });
  auto outcomes = verify(transport, hosts(3), {}, options).hosts;
  EXPECT_EQ(outcomes[0].what, "match: 2 files, 3 B");
  EXPECT_EQ(outcomes[1].what, "differs: 1 changed (b c)");
  EXPECT_EQ(outcomes[2].what, "differs: 1 missing (b c)");
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(transport.opens(i), 1u);
    EXPECT_EQ(steps(transport.commands(i)), std::vector<std::string>{"agent"});
    EXPECT_NE(transport.commands(i)[0].find("--under=. --checksum"), std::string::npos)
        << transport.commands(i)[0];
  }
}

TEST_F(VerifyHosts, WhereTheAgentCannotRunThroughTheHostsTools) {
  Reference ref = reference(true);
  options.reference = &ref;
  options.hash = true;
  FakeTransport transport([&](const Job& job) {
    if (job.index == 0) return FakeHost{{}, {}, {}, {agent_listing(files_, true)}};
    // Another architecture: the reference's SHA-256s are hashed here for it, then compared.
    return FakeHost{
        {},
        {},
        {},
        {replying("", 126, "sh: 1: /opt/pdx: Exec format error\n"), posix_listing(true)}};
  });
  VerifyReport report = verify(transport, hosts(3), {}, options);
  const auto& outcomes = report.hosts;
  const std::string& err = report.warning;
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(outcomes[i].what, "match: 2 files, 3 B") << i;
  EXPECT_EQ(steps(transport.commands(1)), (std::vector<std::string>{"agent", "posix"}));
  EXPECT_EQ(transport.opens(1), 1u);
  EXPECT_EQ(err,
            "pdx: warning: h[1-2]: the agent cannot run there (sh: 1: /opt/pdx: Exec format "
            "error); verifying with the host's find and sha256sum (slower)\n");
  EXPECT_EQ(ref.files[0].sha256, sha256_of("1"));
  EXPECT_EQ(ref.files[0].xxh3, xxh3_of("1"));
}

TEST_F(VerifyHosts, NoAgentGoesThroughTheHostsToolsOnly) {
  Reference ref = reference(true);
  options.reference = &ref;
  options.hash = true;
  options.no_agent = true;
  FakeTransport transport([&](const Job&) { return FakeHost{{}, {}, {}, {posix_listing(true)}}; });
  VerifyReport report = verify(transport, hosts(2), {}, options);
  const auto& outcomes = report.hosts;
  const std::string& err = report.warning;
  EXPECT_EQ(outcomes[0].what, "match: 2 files, 3 B");
  EXPECT_EQ(steps(transport.commands(0)), std::vector<std::string>{"posix"});
  EXPECT_EQ(err,
            "pdx: warning: h[0-1]: the agent cannot run there (--no-agent); verifying with the "
            "host's find and sha256sum (slower)\n");
  EXPECT_EQ(ref.files[0].xxh3, "");  // no agent: only SHA-256 is needed
}

TEST_F(VerifyHosts, TheAgentIsDeployedWhereMissing) {
  options.agent = "";  // self-deploy: this test binary stands for pdx
  FakeTransport transport([&](const Job&) {
    return FakeHost{
        {}, {}, {}, {replying("", kAgentMissing), FakeExec{}, agent_listing(files_, false)}};
  });
  auto outcomes = verify(transport, hosts(1), {}, options).hosts;
  EXPECT_EQ(steps(transport.commands(0)), (std::vector<std::string>{"agent", "upload", "agent"}));
  EXPECT_TRUE(outcomes[0].what.starts_with("2 files, 3 B, listing ")) << outcomes[0].what;
}

TEST_F(VerifyHosts, AMalformedListingIsAnErrorForThatHostOnly) {
  Reference ref = reference(false);
  options.reference = &ref;
  std::string dir_missing = encode_frame(FrameType::entry, encode(Entry{"", EntryKind::missing})) +
                            encode_frame(FrameType::summary, encode(Summary{}));
  std::string unsafe = encode_frame(FrameType::entry, encode(Entry{"", EntryKind::directory})) +
                       encode_frame(FrameType::entry, encode(Entry{"../x", EntryKind::file}));
  std::string cut = agent_listing(files_, false).out;
  cut.resize(cut.size() - 3);
  std::vector<FakeExec> replies = {replying("\x01garbage"),
                                   replying(unsafe),
                                   replying(cut),
                                   replying(dir_missing),
                                   replying("", 1, "pdx: error: /d: Permission denied\n"),
                                   agent_listing(files_, false)};
  FakeTransport transport([&](const Job& job) {
    return FakeHost{{}, {}, {}, {replies[job.index]}};
  });
  auto outcomes = verify(transport, hosts(replies.size()), {}, options).hosts;
  EXPECT_EQ(outcomes[0].what, "malformed listing from the agent (bad frame type 1)");
  EXPECT_TRUE(outcomes[1].what.starts_with("malformed listing from the agent (unsafe name"))
      << outcomes[1].what;
  EXPECT_EQ(outcomes[2].what, "malformed listing from the agent (cut short)");
  EXPECT_EQ(outcomes[3].what, "/d: no such directory");
  EXPECT_EQ(outcomes[4].what, "agent failed: /d: Permission denied");
  EXPECT_EQ(outcomes[5].what, "match: 2 files, 3 B");
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(outcomes[i].status, 1) << i;
}

TEST_F(VerifyHosts, OddHostStandsOutWithoutReferenceAmongHashesOfItsKind) {
  options.hash = true;
  FakeTransport transport([&](const Job& job) {
    if (job.index == 2) return FakeHost{{}, {}, {}, {agent_listing({{"a", "1"}}, true)}};
    if (job.index == 4)  // the same files, hashed with SHA-256 by the host's tools
      return FakeHost{{}, {}, {}, {replying("", 127), posix_listing(true)}};
    return FakeHost{{}, {}, {}, {agent_listing(files_, true)}};
  });
  auto outcomes = verify(transport, hosts(5), {}, options).hosts;
  EXPECT_EQ(outcomes[0].status, 0);
  EXPECT_EQ(outcomes[2].status, 1);
  EXPECT_EQ(outcomes[0].what, outcomes[3].what);
  EXPECT_NE(outcomes[0].what, outcomes[2].what);
  EXPECT_EQ(outcomes[4].status, 0);  // the only one of its kind
  std::string json = outcome_json({"a", "b", "c", "d", "e"}, outcomes);
  EXPECT_NE(json.find("\"host\":\"a\",\"status\":0,\"files\":2,\"bytes\":3,\"listing\":"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"host\":\"c\",\"status\":1,\"files\":1"), std::string::npos);
  EXPECT_NE(json.find("\"result\":\"differs\",\"error\":null}\n{\"host\":\"d\""),
            std::string::npos);
}

TEST_F(VerifyHosts, UnreachableHostsAreSaidSo) {
  FakeTransport transport([&](const Job& job) {
    FakeHost host{{}, {}, {}, {agent_listing(files_, false)}};
    if (job.index == 0) {
      host.open_failure = Failure::connect;
      host.open_error = "Connection refused";
    }
    return host;
  });
  auto outcomes = verify(transport, hosts(2), {}, options).hosts;
  EXPECT_EQ(outcomes[0].status, 255);
  EXPECT_EQ(outcomes[1].status, 0);
}

// The real POSIX command, through -R exec.
std::vector<HostOutcome> verify_here(VerifyOptions options) {
  auto transport = make_local_transport();
  options.no_agent = true;
  return verify(*transport, hosts(1), {}, options).hosts;
}

TEST_F(VerifyHosts, TheRealCommandListsAndHashes) {
  for (const char* tree : {"d", "r"}) {  // on the host, and here
    test::write_file(dir_ / (tree + std::string("/x y")), "hello");
    test::write_file(dir_ / (tree + std::string("/sub/-z")), "");
  }
  auto ref = local_reference(dir_ / "r", true);
  ASSERT_TRUE(ref);
  options.remote_dir = dir_ / "d";
  options.reference = &*ref;
  options.hash = true;
  EXPECT_EQ(verify_here(options)[0].what, "match: 2 files, 5 B");
  test::write_file(dir_ / "d/x y", "jello");
  EXPECT_EQ(verify_here(options)[0].what, "differs: 1 changed (x y)");
  options.remote_dir = dir_ / "none";
  EXPECT_EQ(verify_here(options)[0].what, printable(dir_ / "none") + ": no such directory");
}

TEST_F(VerifyHosts, ParallelHashBatchesDoNotInterleave) {
  std::string long_name(200, 'n');
  for (int i = 0; i < 2000; ++i)
    test::write_file(dir_ / ("d/" + std::to_string(i % 10) + "/" + long_name + std::to_string(i)),
                     "x");
  auto ref = local_reference(dir_ / "d", true);
  ASSERT_TRUE(ref);
  options.remote_dir = dir_ / "d";
  options.reference = &*ref;
  options.hash = true;
  EXPECT_EQ(verify_here(options)[0].what, "match: 2000 files, 2.0 KiB");
}

}  // namespace
}  // namespace pdx
