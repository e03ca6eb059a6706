#include "core/jobs.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

std::vector<Host> hosts() {
  return {{"n1", "", 0, 0}, {"n2", "al", 22, 2}};
}

TEST(MakeJobs, CommandStaysAsTypedWithThePlaceInTheRunAsVariables) {
  JobTemplate t;
  t.command = "date +%s; echo %h";
  t.env = {{"X", "a b"}};
  t.command_timeout = std::chrono::milliseconds(1500);
  auto jobs = make_jobs(hosts(), t);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[1].command, "date +%s; echo %h");
  EXPECT_EQ(jobs[1].env, (std::vector<EnvVar>{{"PDX_HOST", "n2"},
                                              {"PDX_RANK", "1"},
                                              {"PDX_NHOSTS", "2"},
                                              {"PDX_MASTER", "n1"},
                                              {"PDX_SLOTS", "2"},
                                              {"X", "a b"}}));
  EXPECT_EQ(jobs[1].command_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(jobs[1].endpoint.user, "al");
  EXPECT_EQ(jobs[1].endpoint.port, 22);
  EXPECT_EQ(jobs[1].index, 1u);
}

TEST(MakeJobs, SubstitutesWhenAsked) {
  JobTemplate t;
  t.command = "echo %h %u %n %% %X";
  t.substitute = true;
  t.default_user = std::string("me");  // (assigning "me" trips GCC 12's -Wmaybe-uninitialized)
  auto jobs = make_jobs(hosts(), t);
  EXPECT_EQ(jobs[0].command, "echo n1 me 0 % %X");
  EXPECT_EQ(jobs[1].command, "echo n2 al 1 % %X");
  EXPECT_EQ(jobs[0].env.front(), (EnvVar{"PDX_HOST", "n1"}));
}

}  // namespace
}  // namespace pdx
