#include "preflight/probe_script.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "preflight/host_facts.h"

namespace pdx {
namespace {

// The script run by this machine's sh, as a host's shell runs it; its stdout.
std::string run_sh(const std::string& script) {
  std::string path =
      std::string(std::getenv("PDX_TEST_TMP") ? std::getenv("PDX_TEST_TMP") : "/tmp") +
      "/probe_script_test." + std::to_string(getpid());
  FILE* f = std::fopen(path.c_str(), "w");
  EXPECT_TRUE(f);
  std::fputs(script.c_str(), f);
  std::fclose(f);
  std::string out;
  FILE* p = popen(("sh " + path).c_str(), "r");
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  std::remove(path.c_str());
  return out;
}

TEST(ProbeScript, ClockFirstThenFactsThisMachineHas) {
  ProbeOptions o;
  o.python = "/nonexistent/python3";
  o.disk_dirs = {"/"};
  std::string out = run_sh(probe_script(o));
  ASSERT_TRUE(out.starts_with("clock=")) << out;
  HostFacts facts = HostFacts::parse(out);
  utsname u{};
  uname(&u);
  EXPECT_EQ(facts.value_or("kernel", ""), u.release);
  EXPECT_EQ(facts.value_or("python", ""), "-");
  EXPECT_TRUE(facts.has("disk.0"));
  EXPECT_TRUE(facts.has("nofile"));
  EXPECT_TRUE(facts.has("iface.0"));
  EXPECT_FALSE(facts.has("listen"));
  EXPECT_FALSE(facts.has("reach"));
}

TEST(ProbeScript, WordsFromTheCommandLineAreQuoted) {
  std::string mark =
      std::string(std::getenv("PDX_TEST_TMP") ? std::getenv("PDX_TEST_TMP") : "/tmp") +
      "/probe_script_mark." + std::to_string(getpid());
  ProbeOptions o;
  o.python = "py'thon; touch " + mark;
  o.disk_dirs = {"$(touch " + mark + ")", "a'b\"c"};
  o.master = "m`touch " + mark + "`";
  o.is_master = true;
  Host h;
  h.name = "n;touch " + mark;
  h.user = "u'$(touch " + mark + ")";
  o.ssh_targets = {h};
  run_sh(probe_script(o));
  EXPECT_NE(access(mark.c_str(), F_OK), 0) << "a word ran as a command";
  std::remove(mark.c_str());
  std::string net = net_script("py'; touch " + mark, "a$(touch " + mark + ")", "b", 1, 1, 0.5);
  run_sh(net);
  EXPECT_NE(access(mark.c_str(), F_OK), 0) << "a word of --net ran as a command";
  std::remove(mark.c_str());
}

}  // namespace
}  // namespace pdx
