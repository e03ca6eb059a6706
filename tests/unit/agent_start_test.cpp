#include "distribute/agent_start.h"

#include <gtest/gtest.h>

#include "tests/unit/command_reply.h"

namespace pdx {
namespace {

using test::reply;

TEST(AgentStart, TheAgentCannotRunWhenTheShellCannotExecuteIt) {
  auto format = agent_cannot_run(reply(126, "", "sh: 1: exec: /a/pdx: Exec format error\n"), false);
  EXPECT_EQ(format, "sh: 1: exec: /a/pdx: Exec format error");
  EXPECT_EQ(agent_cannot_run(reply(127, ""), false), "exit 127");
  EXPECT_EQ(agent_cannot_run(reply(kAgentMissing, ""), true),
            "its copy in ~/.cache/pdx is not executable");
  EXPECT_EQ(agent_cannot_run(reply(kAgentMissing, ""), false), std::nullopt);  // deploy it first
  EXPECT_EQ(agent_cannot_run(reply(kAgentUntrusted, ""), false), std::nullopt);
  EXPECT_EQ(agent_cannot_run(reply(kAgentNoExec, ""), false),  // no upload again
            "its copy in ~/.cache/pdx is not executable");
  EXPECT_EQ(agent_cannot_run(reply(126, "L..."), false), std::nullopt);  // it ran
  EXPECT_EQ(agent_cannot_run(reply(1, "", "pdx: error: x"), false), std::nullopt);
  ReplySink::Reply unreachable = reply(0, "");
  unreachable.result.failure = Failure::connect;
  EXPECT_EQ(agent_cannot_run(unreachable, false), std::nullopt);
}

TEST(AgentStart, WhatTheShellWritesBeforeTheCommandIsNamed) {
  std::string frames = encode_frame(FrameType::entry, "abc") + encode_frame(FrameType::summary, "");
  EXPECT_EQ(shell_preamble(reply(0, frames)), std::nullopt);
  EXPECT_EQ(shell_preamble(reply(0, "")), std::nullopt);
  EXPECT_EQ(shell_preamble(reply(1, frames.substr(0, 7))), std::nullopt);  // cut short: its own
  const std::string said = " (a startup file printing to stdout?)";
  EXPECT_EQ(shell_preamble(reply(0, "Welcome\n" + frames)),
            "the host's shell writes 8 bytes before the command runs: 'Welcome?'" + said);
  // The agent not run: all of stdout is the shell's.
  EXPECT_EQ(shell_preamble(reply(kAgentMissing, "Welcome\n")),
            "the host's shell writes 8 bytes before the command runs: 'Welcome?'" + said);
  EXPECT_EQ(shell_preamble(reply(127, "x")),
            "the host's shell writes 1 byte before the command runs: 'x'" + said);
  std::string banner(100, '=');
  EXPECT_EQ(shell_preamble(reply(0, banner + "\n" + frames.substr(0, 6))),
            "the host's shell writes 101 bytes before the command runs: '" + banner.substr(0, 40) +
                "...'" + said);
  EXPECT_EQ(shell_preamble(reply(0, "L\377\377\377\377garbage")), std::nullopt);  // not text
  ReplySink::Reply unreachable = reply(0, "Welcome");
  unreachable.result.failure = Failure::connect;
  EXPECT_EQ(shell_preamble(unreachable), std::nullopt);
}

TEST(AgentStart, HostsWhoseCachedAgentWasReplacedAreNamedOnce) {
  EXPECT_EQ(agent_replaced_warning({}), "");
  EXPECT_EQ(agent_replaced_warning({"h1", "h2"}),
            "pdx: warning: h[1-2]: the agent cached there was not as pdx left it (a symlink, "
            "another owner, write permission for others, or another size or SHA-256); uploaded "
            "it again\n");
}

TEST(AgentStart, TheWarningFoldsHostsWithTheSameReason) {
  EXPECT_EQ(agent_fallback_warning({{"h1", "--no-agent"}, {"h3", "x"}, {"h2", "--no-agent"}},
                                   "pushing with the host's sh and tar"),
            "pdx: warning: h[1-2]: the agent cannot run there (--no-agent); pushing with the "
            "host's sh and tar (slower)\n"
            "pdx: warning: h3: the agent cannot run there (x); pushing with the host's sh and tar "
            "(slower)\n");
}

TEST(AgentStart, HostsSentTheStaticBuildAreNamedOncePerReason) {
  EXPECT_EQ(agent_static_warning({}), "");
  const std::string loader = "pdx: error while loading shared libraries: libcrypto.so.3";
  EXPECT_EQ(agent_static_warning({{"h1", loader}, {"h2", loader}}),
            "pdx: warning: h[1-2]: pdx cannot run there (" + loader +
                "); its static build was uploaded instead, and runs there from now on\n");
}

TEST(AgentStart, NoAgentPreparesNothing) {
  PreparedAgent none = prepare_agent("", true);  // this binary not read, nor hashed
  EXPECT_TRUE(none.location.binary.empty());
  EXPECT_TRUE(none.location.sha256.empty());
  EXPECT_FALSE(none.binary);
}

TEST(AgentStart, AnInstalledAgentIsNotUploaded) {
  PreparedAgent installed = prepare_agent("/opt/pdx/bin/pdx", false);
  EXPECT_EQ(installed.location.installed, "/opt/pdx/bin/pdx");
  EXPECT_FALSE(installed.binary);
}

}  // namespace
}  // namespace pdx
