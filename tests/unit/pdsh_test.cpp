#include "core/pdsh.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace pdx {
namespace {

std::vector<std::string> labels(std::vector<std::string> names) {
  std::vector<Host> hosts;
  for (auto& name : names) {
    Host host;
    host.name = std::move(name);
    hosts.push_back(std::move(host));
  }
  return pdsh_labels(hosts);
}

using Names = std::vector<std::string>;

TEST(PdshLabels, CutAtTheFirstDotWhenAllShareOneDomainAndNoneIsAnAddress) {
  EXPECT_EQ(labels({"n1.example.com", "gw", "n2.example.com"}), (Names{"n1", "gw", "n2"}));
  EXPECT_EQ(labels({"a.b.c", "x.y"}), (Names{"a.b.c", "x.y"}));
  EXPECT_EQ(labels({"a.b.c", "x.c"}), (Names{"a.b.c", "x.c"}));
  EXPECT_EQ(labels({"10.0.0.1"}), (Names{"10.0.0.1"}));
  EXPECT_EQ(labels({"10.0.0.1", "11.0.0.1"}), (Names{"10.0.0.1", "11.0.0.1"}));
  EXPECT_EQ(labels({"::ffff:10.0.0.1"}), (Names{"::ffff:10.0.0.1"}));
}

TEST(ApplySshArgs, TakesWhatPdxUsesInOrderAndSkipsTheRest) {
  SshOptions ssh;
  apply_ssh_args("-2 -a -x -l%u %h", "PDSH_SSH_ARGS", ssh);  // pdsh's default
  EXPECT_EQ(ssh.user, "");
  apply_ssh_args(" -p 2222 -c aes128-ctr -oBatchMode=yes -i key -F cfg -lbob -p2223 -q", "X", ssh);
  EXPECT_EQ(ssh.port, 2223);  // the last -p wins, as in ssh
  EXPECT_EQ(ssh.user, "bob");
  EXPECT_EQ(ssh.options, std::vector<std::string>{"BatchMode=yes"});
  EXPECT_EQ(ssh.identity_files, std::vector<std::string>{"key"});
  EXPECT_EQ(ssh.config_file, "cfg");
  apply_ssh_args("-J bob@gw:22,bastion -oProxyCommand=none", "PDSH_SSH_ARGS_APPEND", ssh);
  EXPECT_EQ(ssh.jump_hosts, "bob@gw:22,bastion");  // -J: ProxyJump, not skipped
}

TEST(ApplySshArgs, BadPortOrMissingArgumentIsAUsageError) {
  SshOptions ssh;
  EXPECT_THROW(apply_ssh_args("-p 0", "PDSH_SSH_ARGS_APPEND", ssh), UsageError);
  EXPECT_THROW(apply_ssh_args("-p 22x", "PDSH_SSH_ARGS_APPEND", ssh), UsageError);
  EXPECT_THROW(apply_ssh_args("-o", "PDSH_SSH_ARGS_APPEND", ssh), UsageError);
}

HostResult exited(int status) {
  HostResult r;
  r.exit_status = status;
  return r;
}

TEST(PdshFailureLines, AsPdshPrintsThem) {
  PdshNames names{"vm", "ssh"};
  EXPECT_EQ(pdsh_failure_lines(names, "n1", exited(0), PdshRcmd::ssh), "");
  EXPECT_EQ(pdsh_failure_lines(names, "n1", exited(3), PdshRcmd::ssh),
            "pdsh@vm: n1: ssh exited with exit code 3\n");
  HostResult refused;
  refused.failure = Failure::connect;
  refused.error = "connect refused";
  EXPECT_EQ(pdsh_failure_lines(names, "n1", refused, PdshRcmd::ssh),
            "n1: pdx: connect refused\npdsh@vm: n1: ssh exited with exit code 255\n");
  HostResult killed;
  killed.signal = "KILL";
  EXPECT_EQ(pdsh_failure_lines(names, "n1", killed, PdshRcmd::ssh),
            "pdsh@vm: n1: ssh exited with exit code 255\n");
  EXPECT_EQ(pdsh_failure_lines({"vm", "sh"}, "n1", killed, PdshRcmd::exec),
            "pdsh@vm: n1: sh killed by signal 9\n");
  HostResult late;
  late.failure = Failure::command_timeout;
  EXPECT_EQ(pdsh_failure_lines(names, "n1", late, PdshRcmd::ssh), "pdsh@vm: n1: command timeout\n");
}

TEST(PdshExitStatus, ZeroWithoutStrictElseTheLargest) {
  HostResult refused;
  refused.failure = Failure::connect;
  HostResult killed;
  killed.signal = "TERM";
  std::vector<HostResult> results{exited(3), exited(0)};
  EXPECT_EQ(pdsh_exit_status(results, Strict::no, PdshRcmd::ssh), 0);
  EXPECT_EQ(pdsh_exit_status(results, Strict::yes, PdshRcmd::ssh), 3);
  results.push_back(refused);
  EXPECT_EQ(pdsh_exit_status(results, Strict::yes, PdshRcmd::ssh), 255);
  EXPECT_EQ(pdsh_exit_status({killed}, Strict::yes, PdshRcmd::ssh), 255);
  EXPECT_EQ(pdsh_exit_status({killed}, Strict::yes, PdshRcmd::exec), 0);  // WEXITSTATUS
  HostResult timed_out;
  timed_out.failure = Failure::command_timeout;
  EXPECT_EQ(pdsh_exit_status({exited(3), timed_out}, Strict::yes, PdshRcmd::exec), 254);
  EXPECT_EQ(pdsh_exit_status({exited(3), timed_out}, Strict::yes, PdshRcmd::ssh), 255);
}

TEST(PdshListing, PdshOptListFormat) {
  PdshListing l;
  l.command = "echo hi";
  l.program_path = "/usr/bin/pdsh";
  l.local_user = l.remote_user = "root";
  l.rcmd = "exec";
  l.hosts = {"n1", "n2", "n3", "n1"};
  std::string listing = pdsh_listing(l);
  EXPECT_NE(listing.find("Command:\t\techo hi\n"), std::string::npos);
  EXPECT_NE(listing.find("Rcmd type\t\texec\n"), std::string::npos);
  EXPECT_TRUE(listing.ends_with("\n-- Target nodes --\nn[1-3,1]\n"));
  l.expanded = true;
  EXPECT_TRUE(pdsh_listing(l).ends_with("\nn1,n2,n3,n1\n"));
}

TEST(PdshDebugStats, PdshDshFormat) {
  HostResult slow = exited(0);
  slow.duration = std::chrono::milliseconds(2500);
  HostResult refused;
  refused.failure = Failure::connect;
  EXPECT_EQ(pdsh_debug_stats({exited(0), slow, refused}),
            "Connect time:  Avg: 0 sec, Min: 0 sec,  Max: 0 sec\n"
            "Command time:  Avg: 1 sec, Min: 0 sec,  Max: 2 sec\n"
            "Failures:      1\n");
  EXPECT_EQ(pdsh_debug_stats({refused}),
            "Connect time:  no sucesses\nCommand time:  no sucesses\nFailures:      1\n");
}

}  // namespace
}  // namespace pdx
