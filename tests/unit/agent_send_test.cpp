#include "agent/agent_send.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "base/fd.h"
#include "scratch.h"

namespace pdx {
namespace {

using namespace std::chrono_literals;

struct Sent {
  std::string stream;  // what came over the link
  std::string error;   // agent_send's
};

// agent_send(request) from `dir`, as pdx drives it: the setup on its stdin, a link to where it
// listens, relay_go, the stream to its end.
Sent send_from(const std::string& dir, const SendRequest& request) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) return {"", "pipe"};
  Fd in_read(in[0]), in_write(in[1]), out_read(out[0]), out_write(out[1]);
  std::string secret(kRelaySecretSize, 's');
  Sent sent;
  std::string cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  std::thread agent([&] {
    auto done = agent_send(request, in_read.get(), out_write.get());
    if (!done) sent.error = done.error();
    out_write.reset();
  });
  RelaySetup setup{secret, false, "127.0.0.1", 0, 0, true};
  (void)write_frame(in_write.get(), FrameType::relay_setup, encode(setup));
  auto listening = read_frame(out_read.get(), FrameType::relay_listening);
  if (listening) {
    auto peer = decode_relay_peer(listening->payload);
    auto link = RelayLink::connect(peer->address, peer->port, secret, RelayLink::Clock::now() + 5s,
                                   LinkFlow::to_connector);
    if (link) {
      (void)write_frame(in_write.get(), FrameType::relay_go, "");
      for (;;) {
        auto chunk = link->receive(5s);
        if (!chunk || !*chunk) break;
        sent.stream += **chunk;
      }
      link->passed_on();
      link->close();
    }
  }
  in_write.reset();
  agent.join();
  std::filesystem::current_path(cwd);
  return sent;
}

// The names in a tar stream, as GNU tar lists them.
std::string tar_names(const std::string& dir, const std::string& stream) {
  test::write_file(dir + "/stream.tar", stream);
  std::string names;
  FILE* list = ::popen(("tar -tf '" + dir + "/stream.tar' | LC_ALL=C sort").c_str(), "r");
  char line[512];
  while (list && std::fgets(line, sizeof line, list)) names += line;
  if (list) ::pclose(list);
  return names;
}

TEST(AgentSend, NamesAreThoseOfTarFromTheRemotesDirectory) {
  test::TempDir dir;
  test::write_file(dir / "home/out/run1/x", "x");
  test::write_file(dir / "home/train.log", "log");
  Sent sent = send_from(dir / "home", {{"out/run1", "train.log", "out/run1/"}, "", true});
  EXPECT_EQ(sent.error, "");
  EXPECT_EQ(tar_names(dir.path(), sent.stream), "./\n./run1/\n./run1/x\n./train.log\n./x\n");
}

TEST(AgentSend, ASuffixGoesOnEachTopName) {
  test::TempDir dir;
  test::write_file(dir / "home/run1/x", "x");
  test::write_file(dir / "home/f", "f");
  Sent sent = send_from(dir / "home", {{"run1", "f"}, ".n1", true});
  EXPECT_EQ(sent.error, "");
  EXPECT_EQ(tar_names(dir.path(), sent.stream), "./f.n1\n./run1.n1/\n./run1.n1/x\n");
}

TEST(AgentSend, AMissingRemoteIsLeftOutAndNamed) {
  test::TempDir dir;
  test::write_file(dir / "home/f", "f");
  Sent sent = send_from(dir / "home", {{"none", "f"}, "", true});
  EXPECT_EQ(sent.error, "none: Cannot stat: No such file or directory");
  EXPECT_EQ(tar_names(dir.path(), sent.stream), "./f\n");
}

TEST(AgentSend, AFileThatCannotBeReadIsLeftOutAndNamedAfterTheRest) {
  const char* locked = "/proc/sys/vm/compact_memory";  // write-only, even for root
  if (::access(locked, F_OK) != 0) GTEST_SKIP() << "needs " << locked;
  test::TempDir dir;
  test::write_file(dir / "home/f", "f");
  test::write_file(dir / "home/g", "g");
  Sent sent = send_from(dir / "home", {{"f", locked, "g"}, "", true});
  EXPECT_EQ(sent.error,
            std::string(locked) +
                ": cannot read: Permission denied; fix its permissions or leave it out");
  EXPECT_EQ(tar_names(dir.path(), sent.stream), "./f\n./g\n");
  sent = send_from(dir / "home", {{locked, "none", "g"}, "", true});  // the missing named first
  EXPECT_EQ(sent.error, "none: Cannot stat: No such file or directory (and 1 more)");
  EXPECT_EQ(tar_names(dir.path(), sent.stream), "./g\n");
}

TEST(AgentSend, ADirectoryRefusedFailsTheSend) {
  test::TempDir dir;
  test::write_file(dir / "home/run1/x", "x");
  Sent sent = send_from(dir / "home", {{"run1"}, "", false});
  EXPECT_EQ(sent.error, "use -r to copy directories: run1");
}

TEST(AgentSend, WithoutALinkTheAgentEndsAtOnce) {
  test::TempDir dir;
  int in[2], out[2];
  ASSERT_EQ(::pipe(in), 0);
  ASSERT_EQ(::pipe(out), 0);
  Fd in_read(in[0]), in_write(in[1]), out_read(out[0]), out_write(out[1]);
  RelaySetup setup{std::string(kRelaySecretSize, 's'), false, "127.0.0.1", 0, 0, true};
  ASSERT_TRUE(write_frame(in_write.get(), FrameType::relay_setup, encode(setup)));
  in_write.reset();  // pdx could not link
  auto started = std::chrono::steady_clock::now();
  auto sent = agent_send({{"f"}, "", true}, in_read.get(), out_write.get());
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error(), "pdx never linked");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

}  // namespace
}  // namespace pdx
