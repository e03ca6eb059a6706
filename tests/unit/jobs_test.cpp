#include "core/jobs.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

std::vector<Host> hosts() {
  return {{"n1", "", 0, 0}, {"n2", "al", 22, 2}};
}

TEST(MakeJobs, RemoteCommandCarriesQuotedExportsAndStaysAsTyped) {
  JobTemplate t;
  t.command = "date +%s; echo %h";
  t.env = {{"X", "a b"}};
  auto jobs = make_jobs(hosts(), t);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[1].command,
            "export PDX_HOST=n2 PDX_RANK=1 PDX_NHOSTS=2 PDX_MASTER=n1 PDX_SLOTS=2 X='a b'; "
            "date +%s; echo %h");
  EXPECT_TRUE(jobs[1].env.empty());
  EXPECT_EQ(jobs[1].endpoint.user, "al");
  EXPECT_EQ(jobs[1].endpoint.port, 22);
  EXPECT_EQ(jobs[1].index, 1u);
}

TEST(MakeJobs, LocalSubstitutesAndPutsEnvInTheChild) {
  JobTemplate t;
  t.command = "echo %h %u %n";
  t.remote = false;
  t.default_user = std::string("me");  // (assigning "me" trips GCC 12's -Wmaybe-uninitialized)
  auto jobs = make_jobs(hosts(), t);
  EXPECT_EQ(jobs[0].command, "echo n1 me 0");
  EXPECT_EQ(jobs[1].command, "echo n2 al 1");
  EXPECT_EQ(jobs[0].env.front(), (EnvVar{"PDX_HOST", "n1"}));
}

}  // namespace
}  // namespace pdx

namespace pdx {
namespace {

TEST(MakeJobs, RemoteCommandTimeoutKillsOnTheHostItself) {
  JobTemplate t;
  t.command = "sleep 100; echo 'done'";
  t.command_timeout = std::chrono::milliseconds(1500);
  auto jobs = make_jobs(hosts(), t);
  EXPECT_EQ(jobs[0].command,
            "export PDX_HOST=n1 PDX_RANK=0 PDX_NHOSTS=2 PDX_MASTER=n1; "
            "if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL 3.5 "
            "\"${SHELL:-/bin/sh}\" -c 'sleep 100; echo '\\''done'\\'''; fi\n"
            "sleep 100; echo 'done'");
}

TEST(MakeJobs, RemoteSubstitutesWhenAskedAsPdshDoes) {
  JobTemplate t;
  t.command = "echo %h %u %n %% %X";
  t.default_user = std::string("me");
  t.substitute_remote = true;
  auto jobs = make_jobs(hosts(), t);
  EXPECT_TRUE(jobs[1].command.ends_with("; echo n2 al 1 % %X")) << jobs[1].command;
  EXPECT_TRUE(jobs[0].command.starts_with("export PDX_HOST=n1 "));
}

}  // namespace
}  // namespace pdx
