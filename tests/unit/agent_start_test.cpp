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
  EXPECT_EQ(agent_cannot_run(reply(126, "L..."), false), std::nullopt);        // it ran
  EXPECT_EQ(agent_cannot_run(reply(1, "", "pdx: error: x"), false), std::nullopt);
  ReplySink::Reply unreachable = reply(0, "");
  unreachable.result.failure = Failure::connect;
  EXPECT_EQ(agent_cannot_run(unreachable, false), std::nullopt);
}

TEST(AgentStart, TheWarningFoldsHostsWithTheSameReason) {
  EXPECT_EQ(agent_fallback_warning({{"h1", "--no-agent"}, {"h3", "x"}, {"h2", "--no-agent"}},
                                   "pushing with the host's sh and tar"),
            "pdx: warning: h[1-2]: the agent cannot run there (--no-agent); pushing with the "
            "host's sh and tar (slower)\n"
            "pdx: warning: h3: the agent cannot run there (x); pushing with the host's sh and tar "
            "(slower)\n");
}

}  // namespace
}  // namespace pdx
