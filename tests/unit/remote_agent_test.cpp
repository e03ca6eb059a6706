#include "distribute/remote_agent.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

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
  EXPECT_NE(command.find("true 2>/dev/null > \"$d/used\"; exec"), std::string::npos);  // last use
  std::string upload = upload_command(agent);
  EXPECT_NE(upload.find("-eq 123"), std::string::npos);
  EXPECT_NE(upload.find("chmod 0755"), std::string::npos);
  EXPECT_NE(upload.find("(k=4 c=" + std::string(64, 'a') + "\n"), std::string::npos) << upload;
  EXPECT_TRUE(upload.ends_with(") > /dev/null 2>&1; exit 0")) << upload;
}

TEST(RemoteAgent, InstalledAgentIsNotMarked) {
  EXPECT_EQ(agent_command(*locate_agent("/opt/pdx"), {}).find("used"), std::string::npos);
}

// A cache directory in `home`: NAME/pdx holding `data`, NAME and NAME/pdx last modified `age`
// seconds ago.
void cached(const test::TempDir& home, char digit, const std::string& data, int age) {
  std::string dir = home / (".cache/pdx/" + std::string(64, digit));
  test::write_file(dir + "/pdx", data);
  auto when = std::filesystem::file_time_type::clock::now() - std::chrono::seconds(age);
  std::filesystem::last_write_time(dir + "/pdx", when);
  std::filesystem::last_write_time(dir, when);
}

// Runs upload_command for `binary` with HOME=`home`, which must succeed silently; its agent.
AgentLocation upload(const test::TempDir& home, const std::string& binary) {
  test::write_file(home / "binary", binary);
  AgentLocation agent{"", home / "binary", test::sha256_of(binary), binary.size()};
  test::write_file(home / "upload", upload_command(agent));
  std::string line = "HOME='" + home.path().string() + "' sh '" + home / "upload" + "' < '" +
                     home / "binary" + "' > '" + home / "out" + "' 2>&1";
  EXPECT_EQ(std::system(line.c_str()), 0) << test::read_file(home / "out");
  EXPECT_EQ(test::read_file(home / "out"), "");
  return agent;
}

// What the upload leaves in ~/.cache/pdx: the agent installed, the 3 other agents used last, one
// running (a copy of sleep), and what is not an agent (other names, a symlink, no pdx in it).
TEST(RemoteAgent, UploadKeepsTheAgentsUsedLastAndRunning) {
  test::TempDir home;
  std::string cache = home / ".cache/pdx/";
  for (char digit : {'1', '2', '3', '4', '5', '6'})
    cached(home, digit, "old", 1000 * (digit - '0'));
  test::write_file(cache + std::string(64, '6') + "/used", "");  // the oldest, but used just now
  cached(home, '7', test::read_file("/bin/sleep"), 9000);
  std::string running = cache + std::string(64, '7') + "/pdx";
  ::chmod(running.c_str(), 0755);
  ASSERT_EQ(std::system(("'" + running + "' 30 & echo $! > '" + home / "pid'").c_str()), 0);
  std::string pid = test::read_file(home / "pid");
  pid.pop_back();
  for (int i = 0; i < 100; ++i) {  // until it runs the copy (it was forked by a shell)
    std::error_code error;
    if (std::filesystem::read_symlink("/proc/" + pid + "/exe", error) == running) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  cached(home, '8', "old", 9000);
  std::filesystem::rename(cache + std::string(64, '8'), home / "elsewhere");
  std::filesystem::create_directory_symlink(home / "elsewhere", cache + std::string(64, '8'));
  cached(home, 'A', "old", 9000);                                     // not a digest (upper case)
  std::filesystem::create_directories(cache + std::string(64, 'b'));  // no pdx
  test::write_file(cache + "notes", "mine");

  AgentLocation agent = upload(home, "new agent");
  ::kill(std::stoi(pid), SIGTERM);
  std::vector<std::string> kept = {"notes", agent.sha256};
  for (char digit : {'1', '2', '6', '7', '8', 'A', 'b'}) kept.push_back(std::string(64, digit));
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(test::list_dir(cache), kept);
  EXPECT_EQ(test::read_file(cache + agent.sha256 + "/pdx"), "new agent");
  EXPECT_EQ(test::list_dir(home / "elsewhere"), std::vector<std::string>{"pdx"});
}

// A temporary as a killed upload leaves it, last written `age` seconds ago.
void temporary(const std::string& path, int age) {
  test::write_file(path, "part of an agent");
  auto when = std::filesystem::file_time_type::clock::now() - std::chrono::seconds(age);
  std::filesystem::last_write_time(path, when);
}

// The temporaries of killed uploads go once a day old, wherever they are (the directory of the
// agent installed, of one kept, of one without pdx, which stays); a younger one may be another
// pdx's upload under way, and stays, as does what is not such a file.
TEST(RemoteAgent, UploadRemovesTheTemporariesOfKilledUploads) {
  test::TempDir home;
  std::string cache = home / ".cache/pdx/", binary = "new agent";
  std::string installed = cache + test::sha256_of(binary) + "/",
              kept = cache + std::string(64, '1');
  std::string partial = cache + std::string(64, '2');  // its first upload killed
  cached(home, '1', "old", 1000);
  constexpr int kDay = 24 * 3600;
  temporary(installed + ".pdx.101", kDay + 60);
  temporary(installed + ".pdx.102", kDay - 600);  // another pdx's upload, under way
  temporary(kept + "/.pdx.103", 2 * kDay);
  temporary(partial + "/.pdx.104", 3 * kDay);
  temporary(cache + ".pdx.105", 2 * kDay);  // not in a version's directory
  temporary(kept + "/.pdx.dir/f", 2 * kDay);
  std::filesystem::last_write_time(
      kept + "/.pdx.dir",
      std::filesystem::file_time_type::clock::now() - std::chrono::seconds(2 * kDay));
  std::filesystem::create_symlink(kept + "/pdx", kept + "/.pdx.106");

  upload(home, binary);
  EXPECT_EQ(test::list_dir(installed), (std::vector<std::string>{".pdx.102", "pdx"}));
  EXPECT_EQ(test::list_dir(kept), (std::vector<std::string>{".pdx.106", ".pdx.dir", "pdx"}));
  EXPECT_EQ(test::list_dir(partial), std::vector<std::string>{});
  EXPECT_TRUE(std::filesystem::exists(cache + ".pdx.105"));
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
