#include "distribute/remote_agent.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "archive/sha256.h"
#include "tests/unit/digests.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::sha256_of;

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

// What deployable_agent() looks for: "pdx agent of version VERSION" and its NUL.
const std::string kMark = std::string("pdx agent of version " PDX_VERSION) + '\0';

void write_executable(const std::string& path, const std::string& data) {
  test::write_file(path, data);
  ::chmod(path.c_str(), 0755);
}

TEST(RemoteAgent, DeploysTheStaticBuildBesideThisPdx) {
  test::TempDir dir;
  std::string pdx = dir / "build/pdx", build = "static " + kMark + " build";
  write_executable(pdx, "dynamic " + kMark);
  write_executable(dir / "build/pdx-static", build);
  auto agent = deployable_agent(pdx);
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, dir / "build/pdx-static");
  EXPECT_EQ(agent->sha256, sha256_of(build));  // the cache key is the uploaded binary's
  EXPECT_EQ(agent->size, build.size());
}

TEST(RemoteAgent, DeploysTheInstalledStaticBuild) {
  test::TempDir dir;
  write_executable(dir / "usr/bin/pdx", "dynamic " + kMark);
  write_executable(dir / "usr/lib/pdx/pdx-static", kMark);
  std::filesystem::create_directories(dir / "link");  // pdx reached through a link: its real place
  std::filesystem::create_symlink(dir / "usr/bin/pdx", dir / "link/pdx");
  auto agent = deployable_agent(dir / "link/pdx");
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, dir / "usr/bin/../lib/pdx/pdx-static");
  EXPECT_EQ(agent->sha256, sha256_of(kMark));
}

TEST(RemoteAgent, FindsTheMarkAcrossReads) {
  test::TempDir dir;
  std::string build = std::string((1 << 20) - 5, 'x') + kMark;  // the 1 MiB reads split it
  write_executable(dir / "pdx", "dynamic");
  write_executable(dir / "pdx-static", build);
  auto agent = deployable_agent(dir / "pdx");
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, dir / "pdx-static");
}

TEST(RemoteAgent, DeploysItselfBesideAnotherVersionOrNoExecutable) {
  test::TempDir dir;
  std::string pdx = dir / "bin/pdx", self = "dynamic " + kMark;
  write_executable(pdx, self);
  std::string other = "pdx agent of version 0.0.0" + std::string(1, '\0');
  write_executable(dir / "bin/pdx-static", other);
  write_executable(dir / "lib/pdx/pdx-static", kMark.substr(0, kMark.size() - 1) + "1");
  auto agent = deployable_agent(pdx);
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, pdx);
  EXPECT_EQ(agent->sha256, sha256_of(self));

  test::write_file(dir / "bin/pdx-static", kMark);  // this version's, but not executable
  ::chmod((dir / "bin/pdx-static").c_str(), 0644);
  EXPECT_EQ(deployable_agent(pdx)->binary, pdx);
}

TEST(RemoteAgent, UnreadableSelfIsAnError) {
  test::TempDir dir;
  auto agent = deployable_agent(dir / "gone/pdx");
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.error(), "cannot read this pdx binary: No such file or directory");
}

}  // namespace
}  // namespace pdx
