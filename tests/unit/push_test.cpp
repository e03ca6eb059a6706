#include "distribute/push/push.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <utility>

#include "distribute/progress_meter.h"

#include "distribute/push/push_report.h"
#include "distribute/remote_agent.h"
#include "distribute/remote_commands.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using namespace std::string_literals;

// With the fake transport: what each host's one session is asked to do.

using test::FakeExec;
using test::FakeHost;
using test::FakeTransport;

FakeExec agent_reply(std::string out) {
  FakeExec e;
  e.out = std::move(out);
  return e;
}

// `pdx agent --list` where DEST does not exist yet.
FakeExec nothing_listed() {
  return agent_reply(
      encode_frame(FrameType::entry, encode(Entry{"", EntryKind::missing, 0, 0, 0})) +
      encode_frame(FrameType::summary, encode(Summary{})));
}

FakeExec received(std::uint64_t files, std::uint64_t bytes) {
  return agent_reply(encode_frame(FrameType::summary, encode(Summary{files, bytes, 0})));
}

// What a host's sh and tar reply to a POSIX push of one file of 5 bytes.
FakeExec posix_received() {
  return agent_reply(std::string("c 1 5\0", 6));
}

// What a host's find lists (remote_commands.h, posix_list_command) where DEST does not exist.
FakeExec nothing_found() {
  return agent_reply("n 0 0 0 \0"s);
}

FakeExec agent_missing() {
  FakeExec e;
  e.exit_status = kAgentMissing;
  return e;
}

std::vector<Host> hosts(std::size_t n) {
  std::vector<Host> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i].name = "n" + std::to_string(i);
  return all;
}

class PushSessions : public ::testing::Test {
 protected:
  PushSessions() {
    test::write_file(dir_ / "src/f", "five!");
    options.sources = {dir_ / "src"};
    options.dest = "/d/";
    options.agent = "/opt/pdx";
  }
  // What each command was: list, upload or receive.
  static std::vector<std::string> steps(const std::vector<std::string>& commands) {
    std::vector<std::string> names;
    for (const auto& c : commands)
      names.push_back(c.find(" agent --list=") != std::string::npos             ? "list"
                      : c.find(" agent --receive=") != std::string::npos        ? "receive"
                      : c.find(" agent --relay=") != std::string::npos          ? "relay"
                      : c.find("s='making the directory'") != std::string::npos ? "upload"
                      : c.starts_with("find / -maxdepth 0 -printf")             ? "find"
                      : c.starts_with("D=")                                     ? "tar"
                                                                                : c);
    return names;
  }

  test::TempDir dir_;
  PushOptions options;
};

TEST_F(PushSessions, EachHostListsAndReceivesOnOneSession) {
  FakeTransport transport([](const Job&) {
    return FakeHost{{}, {}, {}, {nothing_listed(), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(3), {}, options);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(transport.opens(i), 1u) << i;
    EXPECT_EQ(steps(transport.commands(i)), (std::vector<std::string>{"list", "receive"}));
    EXPECT_EQ(report.hosts[i].written.bytes, 5u);
  }
  EXPECT_EQ(push_exit_status(report), 0);
}

// The agent that lists stays for the stream over ssh (distribute/held_agent.h): one exec
// for both steps, sent 'r' and the stream; a host with nothing to receive has its stdin closed.
TEST_F(PushSessions, AnAgentThatListsAndStaysTakesTheStreamOnTheSameExec) {
  FakeTransport transport([](const Job& job) {
    FakeExec held;
    held.listing = nothing_listed().out;
    held.out = received(1, 5).out;
    held.echo_stdin = job.index == 1;  // what it was sent, after its receipt
    return FakeHost{{}, {}, {}, {held}};
  });
  PushReport report = push(transport, hosts(2), {}, options);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(transport.commands(i).size(), 1u) << i;
    EXPECT_NE(transport.commands(i)[0].find(" agent --list=/d --under=src --receive=/d/"),
              std::string::npos)
        << transport.commands(i)[0];
  }
  EXPECT_EQ(report.hosts[0].written.bytes, 5u);
  EXPECT_EQ(push_exit_status(report), 1);  // host 1's receipt is followed by its echo
  EXPECT_TRUE(report.hosts[1].error.starts_with("malformed reply from the agent"))
      << report.hosts[1].error;
}

TEST_F(PushSessions, AnAgentThatListsAndStaysWithNothingToReceiveIsLetGo) {
  struct stat st, src;
  ASSERT_EQ(::stat((dir_ / "src/f").c_str(), &st), 0);
  ASSERT_EQ(::stat((dir_ / "src").c_str(), &src), 0);
  FakeExec held;  // DEST holds the sources as they are
  held.listing =
      encode_frame(FrameType::entry, encode(Entry{"", EntryKind::directory, 0755, 0, 0})) +
      encode_frame(FrameType::entry, encode(Entry{"src", EntryKind::directory, src.st_mode & 07777,
                                                  0, src.st_mtim.tv_sec})) +
      encode_frame(FrameType::entry, encode(Entry{"src/f", EntryKind::file, st.st_mode & 07777, 5,
                                                  st.st_mtim.tv_sec})) +
      encode_frame(FrameType::summary, encode(Summary{}));
  held.echo_stdin = true;  // the end at once: nothing after the listing
  FakeTransport transport([&](const Job&) { return FakeHost{{}, {}, {}, {held}}; });
  PushReport report = push(transport, hosts(1), {}, options);
  EXPECT_EQ(transport.commands(0).size(), 1u);
  EXPECT_TRUE(report.hosts[0].up_to_date) << report.hosts[0].error;
  EXPECT_EQ(push_exit_status(report), 0);
}

// A shell that writes before the agent: its stdout is not frames, so its stdin is closed at once
// (it would otherwise wait for a stream that never comes) and the shell is named.
TEST_F(PushSessions, AnAgentThatListsAfterAShellsWordsIsLetGoAndTheShellNamed) {
  FakeTransport transport([](const Job&) {
    FakeExec held;
    held.listing = "Welcome to node0\n" + nothing_listed().out;
    held.echo_stdin = true;  // what it was sent: nothing
    return FakeHost{{}, {}, {}, {held}};
  });
  auto start = std::chrono::steady_clock::now();
  PushReport report = push(transport, hosts(1), {}, options);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(transport.commands(0).size(), 1u);
  EXPECT_NE(report.hosts[0].error.find("the host's shell writes 17 bytes before the command runs"),
            std::string::npos)
      << report.hosts[0].error;
  EXPECT_EQ(push_exit_status(report), 1);
}

// The agent that lists stays, whichever way its data will go (over ssh, a direct link, a relay's
// chain: it is told which by the byte it is sent); where -u limits each command, it lists and
// ends as before.
TEST_F(PushSessions, WhetherTheAgentThatListsStaysFollowsTheTimeLimit) {
  for (int variant = 0; variant < 4; ++variant) {
    PushOptions o = options;
    JobTemplate tmpl;
    if (variant == 0) o.data_via = DataVia::direct;
    if (variant == 1) tmpl.command_timeout = std::chrono::seconds(60);
    if (variant >= 2) o.relay = true;
    if (variant == 3) o.data_via = DataVia::direct;
    FakeTransport transport([](const Job&) { return FakeHost{{}, {}, {}, {nothing_listed()}}; });
    push(transport, hosts(1), tmpl, o);
    ASSERT_FALSE(transport.commands(0).empty());
    const std::string list = transport.commands(0)[0];
    EXPECT_EQ(list.find(" --receive=/d/ --relay=/d/") != std::string::npos, variant != 1)
        << variant << list;
  }
}

TEST_F(PushSessions, TheAgentIsDeployedOnTheSameSession) {
  options.agent.clear();  // self-deploy: the first listing finds no agent
  FakeTransport transport([](const Job&) {
    return FakeHost{{}, {}, {}, {agent_missing(), FakeExec{}, nothing_listed(), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(2), {}, options);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(transport.opens(i), 1u) << i;
    EXPECT_EQ(steps(transport.commands(i)),
              (std::vector<std::string>{"list", "upload", "list", "receive"}));
  }
  EXPECT_EQ(push_exit_status(report), 0);
}

TEST_F(PushSessions, HostsBeyondTheFanoutGoInLaterWaves) {
  options.fanout = 2;
  FakeTransport transport([](const Job& job) {
    FakeHost host{{}, {}, {}, {nothing_listed(), received(1, 5)}};
    host.execs[0].delay = std::chrono::milliseconds(5 * (job.index % 3));
    return host;
  });
  PushReport report = push(transport, hosts(5), {}, options);
  EXPECT_LE(transport.most_at_once(), 2u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(transport.opens(i), 1u) << i;
    EXPECT_EQ(report.hosts[i].written.files, 1u) << i;
  }
  EXPECT_EQ(push_exit_status(report), 0);
}

TEST_F(PushSessions, AHostThatFailsIsNotWaitedFor) {
  FakeTransport transport([](const Job& job) {
    FakeHost host{{}, {}, {}, {nothing_listed(), received(1, 5)}};
    if (job.index == 0) {
      host.open_failure = Failure::connect;
      host.open_error = "connect to port 22: Connection refused";
    }
    if (job.index == 1) {  // dies in the middle of its listing
      host.execs[0].failure = Failure::protocol;
      host.execs[0].error = "connection lost";
    }
    if (job.index == 2) host.execs[0] = agent_reply("\x01junk");  // not text: not a shell's
    return host;
  });
  PushReport report = push(transport, hosts(4), {}, options);
  EXPECT_EQ(report.hosts[0].result.failure, Failure::connect);
  EXPECT_EQ(report.hosts[1].result.failure, Failure::protocol);
  EXPECT_EQ(transport.commands(1).size(), 1u);
  EXPECT_TRUE(report.hosts[2].error.starts_with("malformed reply from the agent"))
      << report.hosts[2].error;
  EXPECT_EQ(report.hosts[3].written.files, 1u);
  EXPECT_EQ(push_exit_status(report), 255);
}

// Ctrl-C while host 0 waits at the barrier for host 1's listing: both end at once; host 0's
// agent, listed and ended or listed and staying for its stream (let go), is sent nothing.
TEST_F(PushSessions, CtrlCEndsHostsWaitingAtTheBarrier) {
  for (bool stays : {false, true}) {
    FakeTransport transport([stays](const Job& job) {
      FakeHost host{{}, {}, {}, {nothing_listed(), received(1, 5)}};
      if (stays && job.index == 0) {
        host.execs[0].listing = std::exchange(host.execs[0].out, "");
        host.execs[0].echo_stdin = true;
      }
      if (job.index == 1) {
        host.execs[0].delay = std::chrono::milliseconds(50);
        host.execs[0].at_start = [] { ::kill(::getpid(), SIGINT); };
      }
      return host;
    });
    auto start = std::chrono::steady_clock::now();
    PushReport report = push(transport, hosts(2), {}, options);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(report.hosts[i].result.failure, Failure::interrupted) << i;
      EXPECT_EQ(steps(transport.commands(i)), (std::vector<std::string>{"list"})) << i;
      EXPECT_EQ(report.hosts[i].written.files, 0u) << i;
    }
    EXPECT_EQ(push_exit_status(report), 130);
  }
}

TEST_F(PushSessions, TheListingAsksForHashesWithChecksum) {
  options.checksum = true;
  FakeTransport transport([](const Job&) {
    return FakeHost{{}, {}, {}, {nothing_listed(), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(1), {}, options);
  ASSERT_EQ(transport.commands(0).size(), 2u);
  EXPECT_NE(transport.commands(0)[0].find(" --checksum"), std::string::npos);
  EXPECT_EQ(report.hosts[0].written.files, 1u);
}

// Host 0 cannot execute the agent (another architecture): its sh and tar get the files, on the
// same session, while host 1 receives from its agent.
TEST_F(PushSessions, AHostWhereTheAgentCannotRunIsSentATarStream) {
  FakeTransport transport([](const Job& job) {
    FakeExec cannot;
    cannot.exit_status = 126;
    cannot.err = "sh: 1: /opt/pdx: Exec format error\n";
    if (job.index == 0) return FakeHost{{}, {}, {}, {cannot, nothing_found(), posix_received()}};
    return FakeHost{{}, {}, {}, {nothing_listed(), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(2), {}, options);
  EXPECT_EQ(transport.opens(0), 1u);
  EXPECT_EQ(steps(transport.commands(0)), (std::vector<std::string>{"list", "find", "tar"}));
  EXPECT_EQ(steps(transport.commands(1)), (std::vector<std::string>{"list", "receive"}));
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(report.hosts[i].written.bytes, 5u) << i;
  EXPECT_EQ(push_exit_status(report), 0);
}

// `pdx agent --list` where DEST is something other than a directory.
FakeExec listed_as(EntryKind kind) {
  return agent_reply(encode_frame(FrameType::entry, encode(Entry{"", kind, 0644, 4, 0})) +
                     encode_frame(FrameType::summary, encode(Summary{})));
}

// DEST/ is listed as DEST: a file there is seen as one, and the host fails on one line before
// anything is sent to it.
TEST_F(PushSessions, ADestWithASlashThatIsAFileFailsTheHost) {
  FakeTransport transport([](const Job&) {
    return FakeHost{{}, {}, {}, {listed_as(EntryKind::file), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(1), {}, options);
  ASSERT_EQ(steps(transport.commands(0)), (std::vector<std::string>{"list"}));
  EXPECT_NE(transport.commands(0)[0].find(" agent --list=/d --under="), std::string::npos)
      << transport.commands(0)[0];
  EXPECT_EQ(report.hosts[0].error, "Not a directory (/d/)");
  EXPECT_EQ(push_exit_status(report), 1);
}

// DEST/ where DEST is a symlink (to a directory, say): listed again through it.
TEST_F(PushSessions, ADestWithASlashThatIsASymlinkIsListedThroughIt) {
  FakeTransport transport([](const Job&) {
    return FakeHost{{}, {}, {}, {listed_as(EntryKind::other), nothing_listed(), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(1), {}, options);
  ASSERT_EQ(steps(transport.commands(0)), (std::vector<std::string>{"list", "list", "receive"}));
  EXPECT_NE(transport.commands(0)[1].find(" agent --list=/d/ --under="), std::string::npos)
      << transport.commands(0)[1];
  EXPECT_EQ(report.hosts[0].written.files, 1u);
  EXPECT_EQ(push_exit_status(report), 0);
}

// --no-agent: each host's find lists DEST, and its plan is made as an agent's host's is: host 1
// has the file (its size and mtime), host 2's find cannot list (it is sent everything).
TEST_F(PushSessions, NoAgentListsWithTheHostsFindAndSkipsWhatItHas) {
  options.no_agent = true;
  struct stat st, src;
  ASSERT_EQ(::stat((dir_ / "src/f").c_str(), &st), 0);
  ASSERT_EQ(::stat((dir_ / "src").c_str(), &src), 0);
  char mode[16];
  std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(src.st_mode & 07777));
  auto time = [](const struct timespec& t) {  // as find's %T@ prints it
    char text[40];
    std::snprintf(text, sizeof text, "%lld.%09ld0", static_cast<long long>(t.tv_sec), t.tv_nsec);
    return std::string(text);
  };
  std::string has = "d 755 4096 0 \0d "s + mode + " 4096 " + time(src.st_mtim) +
                    " ./src\0f 644 5 "s + time(st.st_mtim) + " ./src/f\0"s;
  FakeTransport transport([&](const Job& job) {
    FakeExec cannot_list;
    cannot_list.exit_status = kNoListing;
    FakeExec listed = job.index == 0   ? nothing_found()
                      : job.index == 1 ? agent_reply(has)
                                       : cannot_list;
    return FakeHost{{}, {}, {}, {listed, posix_received()}};
  });
  PushReport report = push(transport, hosts(3), {}, options);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(transport.opens(i), 1u) << i;
    for (const auto& command : transport.commands(i))
      EXPECT_EQ(command.find(" agent "), std::string::npos) << i;
  }
  EXPECT_EQ(steps(transport.commands(0)), (std::vector<std::string>{"find", "tar"}));
  EXPECT_EQ(report.hosts[0].written.files, 1u);
  EXPECT_EQ(steps(transport.commands(1)), (std::vector<std::string>{"find"}));
  EXPECT_TRUE(report.hosts[1].up_to_date);
  EXPECT_EQ(steps(transport.commands(2)), (std::vector<std::string>{"find", "tar"}));
  EXPECT_EQ(report.hosts[2].written.files, 1u);
  EXPECT_EQ(push_exit_status(report), 0);
}

// A listing from a host's find that names what is outside DEST fails that host only; nothing is
// sent to it.
TEST_F(PushSessions, AHostWhoseFindLiesFails) {
  options.no_agent = true;
  FakeTransport transport([](const Job& job) {
    FakeExec listed = job.index == 0 ? agent_reply("d 0 0 0 \0f 0 5 0 ./../x\0"s) : nothing_found();
    return FakeHost{{}, {}, {}, {listed, posix_received()}};
  });
  PushReport report = push(transport, hosts(2), {}, options);
  EXPECT_EQ(steps(transport.commands(0)), (std::vector<std::string>{"find"}));
  EXPECT_EQ(report.hosts[0].error,
            "malformed listing from the host's find: an unsafe name in 'f 0 5 0 ./../x'");
  EXPECT_EQ(report.hosts[1].written.files, 1u);
  EXPECT_EQ(push_exit_status(report), 1);
}

// The self-deployed agent is gone from the host between its listing and its receive (its
// ~/.cache/pdx removed): it is deployed again and the host sent the files from the start.
TEST_F(PushSessions, AnAgentGoneSinceTheListingIsDeployedAgain) {
  options.agent.clear();
  FakeTransport transport([](const Job& job) {
    if (job.index == 0)
      return FakeHost{{}, {}, {}, {nothing_listed(), agent_missing(), FakeExec{}, received(1, 5)}};
    return FakeHost{{}, {}, {}, {nothing_listed(), received(1, 5)}};
  });
  PushReport report = push(transport, hosts(2), {}, options);
  EXPECT_EQ(steps(transport.commands(0)),
            (std::vector<std::string>{"list", "receive", "upload", "receive"}));
  EXPECT_EQ(steps(transport.commands(1)), (std::vector<std::string>{"list", "receive"}));
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(report.hosts[i].written.bytes, 5u) << i;
  EXPECT_EQ(push_exit_status(report), 0);
}

// Once only: an agent gone again fails the host.
TEST_F(PushSessions, AnAgentGoneTwiceFailsTheHost) {
  options.agent.clear();
  FakeTransport transport([](const Job&) {
    return FakeHost{{}, {}, {}, {nothing_listed(), agent_missing(), FakeExec{}, agent_missing()}};
  });
  PushReport report = push(transport, hosts(1), {}, options);
  EXPECT_EQ(steps(transport.commands(0)),
            (std::vector<std::string>{"list", "receive", "upload", "receive"}));
  EXPECT_NE(report.hosts[0].error, "");
  EXPECT_EQ(push_exit_status(report), 1);
}

// The agents end before they link up (as where they cannot listen): the chain is called off,
// and each host is sent the group's stream from here, on the session it relayed on.
TEST_F(PushSessions, ARelayCalledOffIsSentFromHere) {
  options.relay = true;
  FakeTransport transport([](const Job&) {
    FakeExec off;
    off.exit_status = 1;
    return FakeHost{{}, {}, {}, {nothing_listed(), off, received(1, 5)}};
  });
  PushReport report = push(transport, hosts(3), {}, options);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(transport.opens(i), 1u) << i;
    EXPECT_EQ(steps(transport.commands(i)), (std::vector<std::string>{"list", "relay", "receive"}));
    EXPECT_EQ(report.hosts[i].written.bytes, 5u) << i;
  }
  EXPECT_EQ(push_exit_status(report), 0);
}

// The meter is told of each host once (done or failed, whichever step it ended in), and of the
// bytes of each host's plan.
TEST_F(PushSessions, ProgressCountsEachHostOnce) {
  std::string line;
  auto now = std::chrono::steady_clock::now();
  ProgressMeter meter(
      Measure::bytes_of_total, 3, [&](std::string_view s) { line.append(s); }, [&] { return now; });
  options.progress = &meter;
  FakeTransport transport([](const Job& job) {
    if (job.index == 2) return FakeHost{{}, {}, {}, {agent_reply("junk")}};
    return FakeHost{{}, {}, {}, {nothing_listed(), received(1, 5)}};
  });
  push(transport, hosts(3), {}, options);
  now += std::chrono::seconds(1);
  meter.tick();
  EXPECT_NE(line.find(" of 10 B ("), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with("hosts: 2 done, 1 failed, of 3")) << line;
}

}  // namespace
}  // namespace pdx
