#include "distribute/remote_agent.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(RemoteAgent, InstalledAgentIsQuoted) {
  AgentLocation agent = *locate_agent("/opt/my pdx/pdx");
  EXPECT_EQ(agent_command(agent, {"--list=/data/it's $(x)"}),
            "exec '/opt/my pdx/pdx' agent '--list=/data/it'\\''s $(x)'");
}

TEST(RemoteAgent, SelfDeployedAgentIsLookedForInTheCache) {
  AgentLocation agent{"", "/proc/self/exe", std::string(64, 'a'), 123};
  std::string command = agent_command(agent, {"--receive=-d"});
  EXPECT_NE(command.find("$HOME/.cache/pdx/" + std::string(64, 'a')), std::string::npos);
  EXPECT_NE(command.find("exit 97"), std::string::npos);
  EXPECT_TRUE(command.ends_with("agent --receive=-d")) << command;
  std::string upload = upload_command(agent);
  EXPECT_NE(upload.find("-eq 123"), std::string::npos);
  EXPECT_NE(upload.find("chmod 0755"), std::string::npos);
}

TEST(RemoteAgent, LocatesThisBinary) {
  auto agent = locate_agent("");
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->sha256.size(), 64u);
  EXPECT_GT(agent->size, 0u);
}

}  // namespace
}  // namespace pdx
