#include "distribute/remote_agent.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "agent/version_mark.h"
#include "hash/sha256.h"
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
  AgentLocation agent{"", "/proc/self/exe", std::string(64, 'a'), 123, "", nullptr};
  std::string command = agent_command(agent, {"--receive=-d"});
  EXPECT_NE(command.find("$HOME/.cache/pdx/" + std::string(64, 'a')), std::string::npos);
  EXPECT_NE(command.find("exit 97"), std::string::npos);
  EXPECT_TRUE(command.ends_with("agent --receive=-d")) << command;
  EXPECT_NE(command.find("[ -h \"$d/used\" ] || true 2>/dev/null > \"$d/used\"; exec"),
            std::string::npos);                     // last use
  EXPECT_EQ(command.find('%'), std::string::npos);  // push substitutes %h and %n
  std::string upload = upload_command(agent, false);
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

// Runs `script` with sh, HOME=`home`, stdin from `in`; its exit status, its output in `out`.
int run_sh(const test::TempDir& home, const std::string& script, const std::string& in,
           std::string& out, const std::string& path = "") {
  test::write_file(home / "script", script);
  std::string line = (path.empty() ? "" : "PATH='" + path + "' ") + "HOME='" +
                     home.path().string() + "' /bin/sh '" + home / "script" + "' < '" + in +
                     "' > '" + home / "out" + "' 2>&1";
  int status = std::system(line.c_str());
  out = test::read_file(home / "out");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

AgentLocation agent_of(const test::TempDir& home, const std::string& binary) {
  test::write_file(home / "binary", binary);
  return AgentLocation{"", home / "binary", test::sha256_of(binary), binary.size(), "", nullptr};
}

// Runs upload_command for `binary` with HOME=`home`, which must succeed saying only the `u` that
// tells pdx it reads; its agent.
AgentLocation upload(const test::TempDir& home, const std::string& binary) {
  AgentLocation agent = agent_of(home, binary);
  std::string out;
  EXPECT_EQ(run_sh(home, upload_command(agent, false), home / "binary", out), 0) << out;
  EXPECT_EQ(out, "u");
  return agent;
}

// An agent that is a script: what the cache runs, said on its stdout.
const std::string kScriptAgent = "#!/bin/sh\necho ran \"$@\"\n";

// agent_command's exit status with HOME=`home`, and its output.
int run_agent(const test::TempDir& home, const AgentLocation& agent, std::string& out) {
  return run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out);
}

TEST(RemoteAgent, TheCachedAgentRunsOnlyAsUploadedInTheUsersOwnDirectories) {
  test::TempDir home;
  std::string out, cache = home / ".cache/pdx", dir = cache + "/" + sha256_of(kScriptAgent);
  AgentLocation agent = agent_of(home, kScriptAgent);
  EXPECT_EQ(run_agent(home, agent, out), kAgentMissing) << out;
  upload(home, kScriptAgent);
  EXPECT_EQ(run_agent(home, agent, out), 0) << out;
  EXPECT_EQ(out, "ran agent --x\n");
  EXPECT_TRUE(std::filesystem::exists(dir + "/used"));
  // Hashed once: not again until the copy changes (its ctime), even by a sha256sum that lies.
  test::TempDir tools;
  test::write_file(tools / "sha256sum", "#!/bin/sh\necho 0000  -\n");
  ::chmod((tools / "sha256sum").c_str(), 0755);
  std::string lying = tools.path().string() + ":" + std::getenv("PATH");
  EXPECT_EQ(run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out, lying), 0) << out;
  ::chmod((dir + "/pdx").c_str(), 0755);  // the same mode, a new ctime
  EXPECT_EQ(run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out, lying), kAgentUntrusted);

  auto untrusted = [&](const std::string& what) {
    EXPECT_EQ(run_agent(home, agent, out), kAgentUntrusted) << what << ": " << out;
    EXPECT_EQ(out, "") << what;
    upload(home, kScriptAgent);  // made right again
    EXPECT_EQ(run_agent(home, agent, out), 0) << what << ": " << out;
  };
  test::write_file(dir + "/pdx", kScriptAgent.substr(0, 12));  // cut short
  ::chmod((dir + "/pdx").c_str(), 0755);
  untrusted("cut short");
  std::string same_size = kScriptAgent;
  same_size[same_size.size() - 2] = 'X';
  test::write_file(dir + "/pdx", same_size);
  untrusted("another SHA-256");
  ::chmod((dir + "/pdx").c_str(), 0644);
  untrusted("not executable");
  for (const std::string& path : {cache, dir, dir + "/pdx"}) {
    ::chmod(path.c_str(), 0777);
    untrusted(path + " writable by others");
    ::chmod(path.c_str(), 0775);
    untrusted(path + " writable by the group");
  }
  // ~/.cache/pdx a symlink to a directory where another user planted the agent's directory:
  // not run, and the symlink, not what it points to, removed by the upload.
  test::TempDir planted;
  std::filesystem::rename(cache, planted / "pdx");
  std::filesystem::create_directory_symlink(planted / "pdx", cache);
  untrusted("a symlinked ~/.cache/pdx");
  EXPECT_FALSE(std::filesystem::is_symlink(cache));
  EXPECT_TRUE(std::filesystem::exists(planted / ("pdx/" + agent.sha256 + "/pdx")));
  std::filesystem::rename(dir, planted / "sha");
  std::filesystem::create_directory_symlink(planted / "sha", dir);
  untrusted("a symlinked directory");
  EXPECT_TRUE(std::filesystem::exists(planted / "sha/pdx"));
  std::filesystem::rename(dir + "/pdx", planted / "pdx.file");
  std::filesystem::create_symlink(planted / "pdx.file", dir + "/pdx");
  untrusted("a symlinked agent");
  EXPECT_EQ(test::read_file(planted / "pdx.file"), kScriptAgent);
  // While others could write the directory, `used` was made a symlink to a file of the user's:
  // the upload removes it, the run does not truncate that file.
  test::write_file(planted / "victim", "mine");
  ::chmod(dir.c_str(), 0777);
  std::filesystem::remove(dir + "/used");
  std::filesystem::create_symlink(planted / "victim", dir + "/used");
  untrusted("a symlink planted as used");
  EXPECT_EQ(test::read_file(planted / "victim"), "mine");
  EXPECT_FALSE(std::filesystem::is_symlink(dir + "/used"));
}

// `script` as the executable tools/NAME, and the PATH that finds it first.
std::string tool(const test::TempDir& tools, const std::string& name, const std::string& script) {
  test::write_file(tools / name, "#!/bin/sh\n" + script);
  ::chmod((tools / name).c_str(), 0755);
  return tools.path().string() + ":" + std::getenv("PATH");
}

// Each start checks the copy with one find, and hashes it again whenever `ok` is missing, older
// than its last change, or cannot be compared (a find without -cnewer): each time with a
// sha256sum that lies, it is not run.
TEST(RemoteAgent, TheCachedAgentIsCheckedByOneFindAndHashedAgainWhenOkSaysNothing) {
  test::TempDir home, tools;
  std::string out, dir = home / (".cache/pdx/" + sha256_of(kScriptAgent));
  AgentLocation agent = upload(home, kScriptAgent);
  std::string finds = home / "finds";
  tool(tools, "find", "echo >> '" + finds + "'\nexec /usr/bin/find \"$@\"\n");
  std::string lying = tool(tools, "sha256sum", "echo 0000  -\n");
  auto run_counted = [&](const std::string& path) {
    test::write_file(finds, "");
    int status = run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out, path);
    EXPECT_EQ(test::read_file(finds), "\n") << "one find";
    return status;
  };
  EXPECT_EQ(run_counted(lying), 0) << out;  // hashed by the upload
  EXPECT_EQ(out, "ran agent --x\n");
  std::filesystem::remove(dir + "/ok");
  EXPECT_EQ(run_counted(lying), kAgentUntrusted) << out;
  EXPECT_EQ(out, "");
  std::string honest = tools.path().string() + ":" + std::getenv("PATH");
  std::filesystem::remove(tools / "sha256sum");
  EXPECT_EQ(run_counted(honest), 0) << out;  // hashed, `ok` written again
  EXPECT_TRUE(std::filesystem::exists(dir + "/ok"));
  tool(tools, "sha256sum", "echo 0000  -\n");
  EXPECT_EQ(run_counted(lying), 0) << out;
  ::chmod((dir + "/pdx").c_str(), 0755);  // the same mode, a new ctime
  EXPECT_EQ(run_counted(lying), kAgentUntrusted) << out;

  // A find without -cnewer: hashed each time (a second find, without it).
  upload(home, kScriptAgent);
  tool(tools, "find",
       "for a; do [ \"$a\" != -cnewer ] || { echo 'find: unknown predicate' >&2; exit 1; }; done\n"
       "exec /usr/bin/find \"$@\"\n");
  EXPECT_EQ(run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out, lying), kAgentUntrusted)
      << out;
  std::filesystem::remove(tools / "sha256sum");
  EXPECT_EQ(run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out, honest), 0) << out;
  EXPECT_EQ(out, "ran agent --x\n");
  // A find that fails, or prints what it should not: not run, whatever `ok` says.
  for (const char* find :
       {"exit 1\n", "/usr/bin/find \"$@\"; echo \"$3\"\n", "shift; exec /usr/bin/find \"$@\"\n"}) {
    tool(tools, "find", find);
    EXPECT_EQ(run_sh(home, agent_command(agent, {"--x"}), "/dev/null", out, honest),
              kAgentUntrusted)
        << find << out;
    EXPECT_EQ(out, "") << find;
  }
}

TEST(RemoteAgent, AnAgentThatCannotBeExecutedIsSaidToBeSo) {
  test::TempDir home;
  AgentLocation agent = upload(home, kScriptAgent);
  // What a noexec mount does to [ -x ], without mounting one: a test that says no.
  std::string command = agent_command(agent, {});
  auto at = command.find("[ -x \"$f\" ]");
  ASSERT_NE(at, std::string::npos) << command;
  command.replace(at, 11, "false");
  std::string out;
  EXPECT_EQ(run_sh(home, command, "/dev/null", out), kAgentNoExec) << out;
}

TEST(RemoteAgent, TheAgentTravelsGzipCompressedWhereTheHostHasGzip) {
  test::TempDir home, tools;
  AgentLocation agent = agent_of(home, kScriptAgent);
  std::string gz = home / "binary.gz", out;
  ASSERT_EQ(std::system(("gzip -c '" + home / "binary" + "' > '" + gz + "'").c_str()), 0);
  EXPECT_EQ(run_sh(home, upload_command(agent, true), gz, out), 0) << out;
  EXPECT_EQ(run_agent(home, agent, out), 0) << out;
  EXPECT_EQ(out, "ran agent --x\n");
  // A PATH with all the upload uses but gzip: nothing read, kNoGzip.
  std::filesystem::remove_all(home / ".cache");
  for (const char* tool : {"mkdir", "find", "chmod", "cat", "wc", "sha256sum", "cut", "mv", "rm"})
    std::filesystem::create_symlink(std::string("/usr/bin/") + tool, tools / tool);
  EXPECT_EQ(run_sh(home, upload_command(agent, true), gz, out, tools.path()), kNoGzip) << out;
  EXPECT_FALSE(std::filesystem::exists(home / ".cache"));
}

// A host that needed the static build runs it from then on, with its own checks: the
// binary's copy stays beside it, untouched.
TEST(RemoteAgent, TheStaticBuildRunsWhereItIsThere) {
  test::TempDir home;
  const std::string built = "#!/bin/sh\necho static \"$@\"\n";
  AgentLocation agent = agent_of(home, kScriptAgent);
  test::write_file(home / "static", built);
  agent.fallback = std::make_shared<AgentLocation>(
      AgentLocation{"", home / "static", sha256_of(built), built.size(), "", nullptr});
  std::string out;
  EXPECT_EQ(run_agent(home, agent, out), kAgentMissing) << out;
  upload(home, kScriptAgent);
  EXPECT_EQ(run_agent(home, agent, out), 0) << out;
  EXPECT_EQ(out, "ran agent --x\n");
  EXPECT_EQ(run_sh(home, upload_command(*agent.fallback, false), home / "static", out), 0) << out;
  EXPECT_EQ(run_agent(home, agent, out), 0) << out;
  EXPECT_EQ(out, "static agent --x\n");
  std::string copy = home / (".cache/pdx/" + agent.fallback->sha256 + "/pdx");
  EXPECT_TRUE(std::filesystem::exists(home / (".cache/pdx/" + agent.fallback->sha256 + "/used")));
  test::write_file(copy, built.substr(0, 10));  // cut short
  EXPECT_EQ(run_agent(home, agent, out), kStaticUntrusted) << out;
  EXPECT_EQ(test::read_file(home / (".cache/pdx/" + agent.sha256 + "/pdx")), kScriptAgent);
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
  EXPECT_EQ(test::list_dir(installed), (std::vector<std::string>{".pdx.102", "ok", "pdx"}));
  EXPECT_EQ(test::list_dir(kept), (std::vector<std::string>{".pdx.106", ".pdx.dir", "pdx"}));
  EXPECT_EQ(test::list_dir(partial), std::vector<std::string>{});
  EXPECT_TRUE(std::filesystem::exists(cache + ".pdx.105"));
}

TEST(RemoteAgent, LocatesThisBinary) {
  test::TempDir home;  // its copies kept there
  std::string was = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::setenv("HOME", home.path().c_str(), 1);
  auto agent = locate_agent("");
  ::setenv("HOME", was.c_str(), 1);
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->sha256.size(), 64u);
  EXPECT_GT(agent->size, 0u);
}

// What deployable_agent() looks for: "pdx agent of version VERSION of sources HASH" and its NUL.
const std::string kMark(agent_version_mark());

void write_executable(const std::string& path, const std::string& data) {
  test::write_file(path, data);
  ::chmod(path.c_str(), 0755);
}

TEST(RemoteAgent, DeploysThisPdxWithTheStaticBuildBesideItAsItsFallback) {
  test::TempDir dir;
  std::string pdx = dir / "build/pdx", build = "static " + kMark + " build";
  write_executable(pdx, "dynamic " + kMark);
  write_executable(dir / "build/pdx-static", build);
  auto agent = deployable_agent(pdx);
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, pdx);  // the smaller
  EXPECT_EQ(agent->sha256, sha256_of("dynamic " + kMark));
  ASSERT_NE(agent->fallback, nullptr);
  EXPECT_EQ(agent->fallback->binary, dir / "build/pdx-static");
  EXPECT_EQ(agent->fallback->sha256, sha256_of(build));  // the cache key is the uploaded binary's
  EXPECT_EQ(agent->fallback->size, build.size());
  EXPECT_EQ(agent->fallback->fallback, nullptr);
}

TEST(RemoteAgent, DeploysTheStaticBuildAloneWhereItIsNotLarger) {
  test::TempDir dir;
  std::string pdx = dir / "build/pdx", build = "static " + kMark;
  write_executable(pdx, "dynamic " + kMark + " with its symbols");
  write_executable(dir / "build/pdx-static", build);
  auto agent = deployable_agent(pdx);
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, dir / "build/pdx-static");
  EXPECT_EQ(agent->sha256, sha256_of(build));
  EXPECT_EQ(agent->fallback, nullptr);
  auto itself = deployable_agent(dir / "build/pdx-static");  // pdx-static run itself
  ASSERT_TRUE(itself.ok()) << itself.error();
  EXPECT_EQ(itself->sha256, sha256_of(build));
  EXPECT_EQ(itself->fallback, nullptr);
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

// pdx-agent (the agent alone) beside pdx, or installed in lib/pdx/, is what is sent, pdx-static
// still its fallback; one of another version, or of other agent sources, is passed over.
TEST(RemoteAgent, DeploysThePdxAgentBesideIt) {
  test::TempDir dir;
  std::string pdx = dir / "build/pdx", alone = "agent " + kMark;
  write_executable(pdx, "dynamic " + kMark + " and the other commands");
  write_executable(dir / "build/pdx-agent", alone);
  write_executable(dir / "build/pdx-static", "static " + kMark + " and the other commands too");
  auto agent = deployable_agent(pdx);
  ASSERT_TRUE(agent.ok()) << agent.error();
  EXPECT_EQ(agent->binary, dir / "build/pdx-agent");
  EXPECT_EQ(agent->sha256, sha256_of(alone));
  ASSERT_NE(agent->fallback, nullptr);
  EXPECT_EQ(agent->fallback->binary, dir / "build/pdx-static");

  write_executable(dir / "usr/bin/pdx", "dynamic " + kMark);
  write_executable(dir / "usr/lib/pdx/pdx-agent", alone);
  EXPECT_EQ(deployable_agent(dir / "usr/bin/pdx")->binary, dir / "usr/bin/../lib/pdx/pdx-agent");

  write_executable(dir / "build/pdx-agent",
                   "agent pdx agent of version 0.0.0" + std::string(1, '\0'));
  EXPECT_EQ(deployable_agent(pdx)->binary, pdx);
  // The same version built from other sources of the agent: stale, passed over too.
  write_executable(dir / "build/pdx-agent", "agent pdx agent of version " PDX_VERSION
                                            " of sources 0123456789abcdef" +
                                                std::string(1, '\0'));
  EXPECT_EQ(deployable_agent(pdx)->binary, pdx);
}

TEST(RemoteAgent, FindsTheMarkAcrossReads) {
  test::TempDir dir;
  std::string build = std::string((1 << 20) - 5, 'x') + kMark;  // the 1 MiB reads split it
  write_executable(dir / "pdx", "dynamic");
  write_executable(dir / "pdx-static", build);
  auto agent = deployable_agent(dir / "pdx");
  ASSERT_TRUE(agent.ok()) << agent.error();
  ASSERT_NE(agent->fallback, nullptr);
  EXPECT_EQ(agent->fallback->binary, dir / "pdx-static");
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
  EXPECT_EQ(agent->fallback, nullptr);

  test::write_file(dir / "bin/pdx-static", kMark);  // this version's, but not executable
  ::chmod((dir / "bin/pdx-static").c_str(), 0644);
  EXPECT_EQ(deployable_agent(pdx)->binary, pdx);
}

TEST(RemoteAgent, ACacheKeepsThisPdxWithoutSymbolsAndGzipped) {
  test::TempDir dir;
  std::string self = std::filesystem::read_symlink("/proc/self/exe");  // an ELF with the mark
  auto agent = deployable_agent(self, dir / "sent");
  ASSERT_TRUE(agent.ok()) << agent.error();
  if (std::system("command -v objcopy > /dev/null") == 0) {
    EXPECT_TRUE(agent->binary.starts_with(dir / "sent/")) << agent->binary;
    EXPECT_LT(agent->size, std::filesystem::file_size(self));
  }
  EXPECT_EQ(agent->sha256, sha256_of(test::read_file(agent->binary)));
  ASSERT_EQ(agent->gzipped, dir / ("sent/" + agent->sha256 + ".gz"));
  std::string unpacked = dir / "unpacked";
  ASSERT_EQ(std::system(("gzip -dc '" + agent->gzipped + "' > '" + unpacked + "'").c_str()), 0);
  EXPECT_EQ(sha256_of(test::read_file(unpacked)), agent->sha256);
  auto again = deployable_agent(self, dir / "sent");  // the same copies, kept
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->binary, agent->binary);
  EXPECT_EQ(again->gzipped, agent->gzipped);
}

TEST(RemoteAgent, UnreadableSelfIsAnError) {
  test::TempDir dir;
  auto agent = deployable_agent(dir / "gone/pdx");
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.error(), "cannot read this pdx binary: No such file or directory");
}

}  // namespace
}  // namespace pdx
