#include "preflight/checks.h"

#include <gtest/gtest.h>

#include <string>

namespace pdx {
namespace {

// A host that said the same as every other: Debian 12, python 3.11.2, torch on CPU, lo up.
HostProbe host(const std::string& label, const std::string& extra = "") {
  HostProbe p;
  p.label = label;
  p.facts = HostFacts::parse(extra +
                             "os=Debian 12\nkernel=6.1\nglibc=2.36\npython=3.11.2\n"
                             "torch=1.13.1\ntorch.cuda=-\ndeepspeed=-\naccelerate=-\ngpus=-\n"
                             "iface.0=lo 0x9 65536\niface.1=eth0 0x1003 1500\n"
                             "iface.2=eth1 0x1002 1500\nipaddr.0=lo 127.0.0.1/8\n"
                             "ipaddr.1=eth0 10.0.0.1/24\nshm_kb=1048576\nnofile=65536\n"
                             "memlock=8192\nrdma=0\nlisten=ok\nreach=ok 0.3\nssh.0=ok\nssh.1=ok\n"
                             "ssh.2=ok\n");
  p.clock_offset_ms = 3;
  return p;
}

// The lines of the check named `name` only.
std::string lines_of(const std::vector<HostProbe>& hosts, const CheckOptions& o,
                     const std::string& name) {
  std::vector<std::string> labels;
  for (const auto& h : hosts) labels.push_back(h.label);
  for (const auto& check : run_checks(hosts, o))
    if (check.name == name) return check_lines(labels, {check});
  return "(no check " + name + ")";
}

TEST(Checks, AllAgreeAllPass) {
  std::vector<HostProbe> hosts = {host("n1"), host("n2"), host("n3")};
  CheckOptions o;
  o.master = 0;
  o.master_name = "n1";
  std::vector<CheckResult> checks = run_checks(hosts, o);
  EXPECT_FALSE(any_failed(checks));
  EXPECT_EQ(lines_of(hosts, o, "python3"), "ok   python3 3.11.2: n[1-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "torch"), "ok   torch 1.13.1, CPU only: n[1-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "GPUs"), "n/a  GPUs (no nvidia-smi): n[1-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "master port 29500"), "ok   master port 29500 free: n1\n");
  EXPECT_EQ(lines_of(hosts, o, "connect to n1:29500"), "ok   connect to n1:29500: n[1-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "ssh from n1"), "ok   ssh from n1: n[1-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "clock"), "ok   clock within 500 ms: n[1-3]\n");
}

TEST(Checks, OddVersionAndUnreachedHost) {
  std::vector<HostProbe> hosts = {host("n1"), host("n2", "python=3.9.2\n"), host("n3"),
                                  HostProbe{"n4", 0, "connect refused", {}, {}}};
  CheckOptions o;
  EXPECT_EQ(lines_of(hosts, o, "python3"),
            "ok   python3 3.11.2: n[1,3]\nFAIL python3 3.9.2: n2 (n[1,3]: 3.11.2)\n");
  EXPECT_EQ(lines_of(hosts, o, "reached"),
            "ok   reached: n[1-3]\nFAIL reached: n4 (connect refused)\n");
}

TEST(Checks, GpusAgainstSlots) {
  std::string eight;
  for (int i = 0; i < 8; ++i)
    eight += "gpu." + std::to_string(i) + "=NVIDIA A100, 535.1, Enabled, 0\n";
  std::vector<HostProbe> hosts = {host("n1", "gpus=8\n" + eight), host("n2", "gpus=4\n" + eight),
                                  host("n3")};
  for (auto& h : hosts) h.slots = 8;
  CheckOptions o;
  EXPECT_EQ(lines_of(hosts, o, "GPUs"),
            "ok   GPUs 8 x NVIDIA A100, slots=8: n1\nFAIL GPUs 4 x NVIDIA A100, slots=8: n2\n"
            "FAIL GPUs none (no nvidia-smi), slots=8: n3\n");
  EXPECT_EQ(
      lines_of(hosts, o, "NVIDIA driver"),
      "ok   NVIDIA driver 535.1: n[1-2]\nFAIL NVIDIA driver (no nvidia-smi): n3 (n[1-2]: 535.1)\n");
}

TEST(Checks, Interfaces) {
  std::vector<HostProbe> hosts = {host("n1", "ifvar.NCCL_SOCKET_IFNAME=eth0\n"),
                                  host("n2", "ifvar.NCCL_SOCKET_IFNAME=eth1\n"),
                                  host("n3", "ifvar.NCCL_SOCKET_IFNAME=bond1\n"),
                                  host("n4", "ifvar.NCCL_SOCKET_IFNAME==lo\n"), host("n5")};
  CheckOptions o;
  EXPECT_EQ(lines_of(hosts, o, "NCCL_SOCKET_IFNAME"),
            "ok   NCCL_SOCKET_IFNAME eth0 up, mtu 1500: n1\n"
            "FAIL NCCL_SOCKET_IFNAME eth1 down: n2\n"
            "FAIL NCCL_SOCKET_IFNAME bond1 missing: n3\n"
            "FAIL NCCL_SOCKET_IFNAME lo up, mtu 65536: n4 (n1: eth0 up, mtu 1500)\n"
            "FAIL NCCL_SOCKET_IFNAME not set: n5\n");
  EXPECT_EQ(lines_of(hosts, o, "GLOO_SOCKET_IFNAME"), "(no check GLOO_SOCKET_IFNAME)");
}

TEST(Checks, LimitsClockDiskPortSsh) {
  std::vector<HostProbe> hosts = {
      host("n1", "shm_kb=65536\nlisten=fail Address already in use\n"),
      host("n2", "nofile=1024\ndisk.0=100\nssh.1=fail Permission denied\n"),
      host("n3", "memlock=64\nrdma=2\ndisk.0=xyz\n")};
  hosts[1].clock_offset_ms = -2500;
  CheckOptions o;
  o.master = 0;
  o.master_name = "n1";
  o.need_disk = {{"/data", 1 << 20}};
  EXPECT_EQ(lines_of(hosts, o, "/dev/shm"),
            "FAIL /dev/shm 64.0 MiB < 1.0 GiB: n1\nok   /dev/shm 1.0 GiB: n[2-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "ulimit -n"),
            "ok   ulimit -n 65536: n[1,3]\nFAIL ulimit -n 1024 < 4096: n2\n");
  EXPECT_EQ(lines_of(hosts, o, "ulimit -l"),
            "ok   ulimit -l 8192 KiB (no RDMA device): n[1-2]\n"
            "FAIL ulimit -l 64 KiB with RDMA devices (unlimited wanted): n3\n");
  EXPECT_EQ(lines_of(hosts, o, "clock"),
            "ok   clock within 500 ms: n[1,3]\nFAIL clock off by -2500 ms: n2 (within 500 ms)\n");
  EXPECT_EQ(
      lines_of(hosts, o, "disk /data"),
      "FAIL disk /data (not found): n[1,3]\nFAIL disk /data free < 1.0 MiB: n2 (100.0 KiB free)\n");
  EXPECT_EQ(lines_of(hosts, o, "master port 29500"),
            "FAIL master port 29500 taken: n1 (Address already in use)\n");
  EXPECT_EQ(lines_of(hosts, o, "connect to n1:29500"),
            "n/a  connect to n1:29500 (no listener there): n[1-3]\n");
  EXPECT_EQ(lines_of(hosts, o, "ssh from n1"),
            "ok   ssh from n1: n[1-3]\n");  // n2's own ssh.1 is not asked
}

TEST(Checks, HostsShortOfDiskShareOneLineWhateverEachHasFree) {
  std::vector<HostProbe> hosts = {host("n1", "disk.0=2048\n"), host("n2", "disk.0=1000\n"),
                                  host("n3", "disk.0=1500\n"), host("n4", "disk.0=1000\n")};
  CheckOptions o;
  o.need_disk = {{"/data", 2 << 20}};
  EXPECT_EQ(lines_of(hosts, o, "disk /data"),
            "ok   disk /data >= 2.0 MiB free: n1\n"
            "FAIL disk /data free < 2.0 MiB: n[2-4] (1000.0 KiB to 1.5 MiB free)\n");
  std::vector<std::string> labels = {"n1", "n2", "n3", "n4"};
  std::string json;
  for (const auto& check : run_checks(hosts, o))
    if (check.name == "disk /data") json = check_json(labels, {check});
  EXPECT_NE(json.find("\"host\":\"n3\",\"outcome\":\"fail\",\"value\":\"free < 2.0 MiB\","
                      "\"note\":\"(1000.0 KiB to 1.5 MiB free)\",\"detail\":\"1.5 MiB\""),
            std::string::npos)
      << json;
}

TEST(Checks, SshFromTheFirstHostFoldsByReason) {
  std::vector<HostProbe> hosts = {
      host("n1",
           "ssh.1=fail ssh: connect to host n2 port 22: Connection refused\n"
           "ssh.2=fail ssh: connect to host n3 port 22: Connection refused\nssh.3=\n"),
      host("n2"), host("n3"), host("n4"), host("n5")};
  CheckOptions o;
  EXPECT_EQ(lines_of(hosts, o, "ssh from n1"),
            "ok   ssh from n1: n1\nFAIL ssh from n1: n[2-3] (Connection refused)\n"
            "FAIL ssh from n1: n4 (failed)\nFAIL ssh from n1: n5 (no answer)\n");
}

TEST(Checks, NetRingNamesTheSlowHost) {
  std::vector<HostProbe> hosts = {host("n1", "net=ok 0.05 9000\nnet.to=n2\nnet.loopback=1\n"),
                                  host("n2", "net=ok 0.06 8000\nnet.to=n3\n"),
                                  host("n3", "net=ok 0.40 900\nnet.to=n4\n"),
                                  host("n4", "net=fail Connection refused\nnet.to=n1\n")};
  CheckOptions o;
  o.net = true;
  EXPECT_EQ(lines_of(hosts, o, "net ring (loopback)"),
            "ok   net ring (loopback) median 8.0 Gbit/s: n[1-2]\n"
            "FAIL net ring (loopback) 900 Mbit/s to n4, RTT 0.40 ms: n3 (median 8.0 Gbit/s)\n"
            "FAIL net ring (loopback) to n1: n4 (Connection refused)\n");
}

TEST(Checks, AgentCachedOrNot) {
  std::vector<HostProbe> hosts = {host("n1", "agent.0=aaa\nagent.1=bbb\n"),
                                  host("n2", "agent.0=ccc\n"), host("n3")};
  CheckOptions o;
  EXPECT_EQ(lines_of(hosts, o, "pdx agent"), "(no check pdx agent)");
  o.agent_sha256 = {"bbb"};
  EXPECT_EQ(lines_of(hosts, o, "pdx agent"),
            "ok   pdx agent of this pdx (" PDX_VERSION
            ") cached: n1\n"
            "n/a  pdx agent (not cached: push and verify deploy it): n[2-3]\n");
}

}  // namespace
}  // namespace pdx
