#include "cmd/pdsh_options.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "base/error.h"

namespace pdx {
namespace {

TEST(PdshOptions, ReachOptionsAndOthers) {
  PdshReach reach;
  EXPECT_TRUE(apply_reach_option('w', "n[1-2]", reach));
  EXPECT_TRUE(apply_reach_option('x', "n2", reach));
  EXPECT_TRUE(apply_reach_option('f', "4", reach));
  EXPECT_TRUE(apply_reach_option('R', "exec", reach));
  EXPECT_TRUE(apply_reach_option('l', "alice", reach));
  EXPECT_FALSE(apply_reach_option('S', "", reach));
  EXPECT_TRUE(apply_reach_option('g', "gpu=a100,login", reach));  // the genders module's
  EXPECT_TRUE(apply_reach_option('F', "./genders", reach));
  EXPECT_EQ(reach.genders.queries, (std::vector<std::string>{"gpu=a100", "login"}));
  EXPECT_FALSE(apply_reach_option('?', "", reach));
  reach.genders = {};
  EXPECT_EQ(reach.fanout, 4u);
  EXPECT_EQ(reach.rcmd, PdshRcmd::exec);
  EXPECT_EQ(reach.ssh.user, "alice");
  EXPECT_THROW(apply_reach_option('f', "0", reach), UsageError);
  EXPECT_THROW(apply_reach_option('R', "rsh", reach), UsageError);

  PdshRun run = pdsh_run(reach);
  ASSERT_EQ(run.hosts.size(), 1u);
  EXPECT_EQ(run.hosts[0].name, "n1");
  EXPECT_EQ(run.tmpl.default_user, "alice");
}

TEST(PdshOptions, TheEnvironmentFirst) {
  ::setenv("FANOUT", "7", 1);
  ::setenv("PDSH_SSH_ARGS_APPEND", "-p 2222", 1);
  PdshReach reach;
  read_reach_environment(reach);
  ::unsetenv("FANOUT");
  ::unsetenv("PDSH_SSH_ARGS_APPEND");
  EXPECT_EQ(reach.fanout, 7u);
  EXPECT_EQ(reach.ssh.port, 2222);
}

TEST(PdshOptions, OptionErrorsNameTheProgram) {
  try {
    throw_option_error('?', 'Z', "rpdcp");
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "rpdcp option -Z is unknown or not one pdx has; see 'rpdcp -h'");
  }
}

}  // namespace
}  // namespace pdx
