#include "transport/ssh_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

SshConfig parse(const std::string& text) {
  SshConfig c;
  auto ok = c.add_text(text, "test_config", true);
  EXPECT_TRUE(ok.ok()) << ok.error();
  return c;
}

TEST(SshConfig, HostPatternsWithWildcardsAndNegation) {
  EXPECT_TRUE(host_matches("node07", {"node*"}));
  EXPECT_TRUE(host_matches("node7", {"node?"}));
  EXPECT_FALSE(host_matches("node07", {"node?"}));
  EXPECT_TRUE(host_matches("a.example.com", {"*.example.com"}));
  EXPECT_FALSE(host_matches("node13", {"node*", "!node13"}));
  EXPECT_TRUE(host_matches("node14", {"node*", "!node13"}));
  EXPECT_FALSE(host_matches("node14", {"!node13"}));  // a negation alone matches nothing
  EXPECT_TRUE(host_matches("x", {"*"}));
}

TEST(SshConfig, FirstValueWins) {
  auto c = parse(
      "Host node01\n  User first\n  Port 2201\n"
      "Host node*\n  User second\n  Port 2200\n  IdentityFile ~/.ssh/a\n"
      "Host *\n  User third\n  IdentityFile ~/.ssh/b\n");
  auto h = c.lookup("node01");
  EXPECT_EQ(h.user, "first");
  EXPECT_EQ(h.port, 2201);
  EXPECT_EQ(h.identity_files, (std::vector<std::string>{"~/.ssh/a", "~/.ssh/b"}));
  EXPECT_EQ(c.lookup("node02").user, "second");
  EXPECT_EQ(c.lookup("login").user, "third");
  EXPECT_EQ(c.lookup("login").port, 0);
}

TEST(SshConfig, HostNameExpandsPercentH) {
  auto c = parse("Host n*\n  HostName %h.cluster.example\nHost alias\n  HostName 10.0.0.1\n");
  EXPECT_EQ(c.lookup("n01").hostname, "n01.cluster.example");
  EXPECT_EQ(c.lookup("alias").hostname, "10.0.0.1");
  EXPECT_EQ(c.lookup("other").hostname, "other");
}

TEST(SshConfig, SyntaxVariantsAndUnknownKeywords) {
  auto c = parse(
      "# comment\n\n  user=eq\nPORT = 2222\nSomeFutureKeyword yes\nSendEnv LANG\n"
      "IdentityFile \"/path/with space/key\"\nStrictHostKeyChecking Accept-New\n"
      "UserKnownHostsFile /a/known /b/known\nConnectTimeout 7\nIdentitiesOnly yes\n"
      "KexAlgorithms curve25519-sha256\n");
  auto h = c.lookup("any");
  EXPECT_EQ(h.user, "eq");
  EXPECT_EQ(h.port, 2222);
  EXPECT_EQ(h.identity_files, (std::vector<std::string>{"/path/with space/key"}));
  EXPECT_EQ(h.strict_host_key_checking, "accept-new");
  EXPECT_EQ(h.user_known_hosts_files, (std::vector<std::string>{"/a/known", "/b/known"}));
  EXPECT_EQ(h.connect_timeout, std::chrono::seconds(7));
  EXPECT_TRUE(h.identities_only);
  EXPECT_EQ(h.kex_algorithms, "curve25519-sha256");
}

TEST(SshConfig, OptionsWinOverFilesWhateverTheOrder) {
  SshConfig c;
  ASSERT_TRUE(c.add_option("User=from-o").ok());
  ASSERT_TRUE(c.add_text("User from-file\nPort 2000\n", "f", true).ok());
  ASSERT_TRUE(c.add_option("Port 3000").ok());
  EXPECT_EQ(c.lookup("h").user, "from-o");
  EXPECT_EQ(c.lookup("h").port, 3000);
}

TEST(SshConfig, BadOptionsAreErrors) {
  SshConfig c;
  EXPECT_FALSE(c.add_option("Port=notanumber").ok());
  EXPECT_FALSE(c.add_option("Port=70000").ok());
  EXPECT_FALSE(c.add_option("StrictHostKeyChecking=maybe").ok());
  EXPECT_FALSE(c.add_option("User=").ok());
  EXPECT_FALSE(c.add_option("=x").ok());
  EXPECT_TRUE(c.add_option("LogLevel=ERROR").ok());  // a keyword pdx does not use: ignored
}

TEST(SshConfig, MatchBlocksOtherThanAllNeverApply) {
  auto c = parse("Match exec \"true\"\n  User matched\nMatch all\n  Port 2022\n");
  EXPECT_EQ(c.lookup("h").user, "");
  EXPECT_EQ(c.lookup("h").port, 2022);
}

TEST(SshConfig, IncludeAppliesUnderItsHostBlock) {
  test::TempDir scratch;
  const auto& dir = scratch.path();
  std::ofstream(dir / "inc1.conf") << "User included\nHost *\n  Port 2345\n";
  std::ofstream(dir / "inc2.conf") << "IdentityFile /k2\n";
  auto c =
      parse("Host gpu*\n  Include " + (dir / "inc*.conf").string() + "\nHost *\n  User last\n");
  auto gpu = c.lookup("gpu1");
  EXPECT_EQ(gpu.user, "included");
  EXPECT_EQ(gpu.port, 2345);
  EXPECT_EQ(gpu.identity_files, (std::vector<std::string>{"/k2"}));
  auto cpu = c.lookup("cpu1");
  EXPECT_EQ(cpu.user, "last");
  EXPECT_EQ(cpu.port, 0);  // inside the gpu* block, even after the included file's Host *
}

TEST(SshConfig, HostIsMatchedInLowerCase) {
  auto c = parse("Host node1\n  User u\n  HostName %h.cluster\n");
  EXPECT_EQ(c.lookup("NODE1").user, "u");
  EXPECT_EQ(c.lookup("Node1").hostname, "node1.cluster");
  EXPECT_EQ(c.lookup("OTHER").hostname, "other");
  EXPECT_EQ(parse("HostName NODE1.Example\n").lookup("x").hostname, "node1.example");
  EXPECT_EQ(parse("Host GPU1 Gpu*\n  User g\n").lookup("gpu1").user, "g");  // patterns too
  EXPECT_EQ(parse("Host Gpu*\n  User g\n").lookup("GPU7").user, "g");
}

TEST(SshConfig, BlockPerHostKeepsFileOrderAcrossPlainAndPatternHosts) {
  std::string text = "Host *.lab\n  Port 2000\n";
  for (int i = 0; i < 300; ++i)
    text += "Host n" + std::to_string(i) + " n" + std::to_string(i) + ".lab\n  User u" +
            std::to_string(i) + "\n  Port " + std::to_string(3000 + i) + "\n";
  text += "Host n1*\n  User pattern\n  IdentityFile ~/k1\nHost n12\n  IdentityFile ~/k2\n";
  auto c = parse(text);
  EXPECT_EQ(c.lookup("n12").user, "u12");
  EXPECT_EQ(c.lookup("n12").port, 3012);
  EXPECT_EQ(c.lookup("n12").identity_files, (std::vector<std::string>{"~/k1", "~/k2"}));
  EXPECT_EQ(c.lookup("n12.lab").port, 2000);  // the *.lab block comes first
  EXPECT_EQ(c.lookup("n12.lab").user, "u12");
  EXPECT_EQ(c.lookup("n1000").user, "pattern");
  EXPECT_EQ(c.lookup("x9").user, "");
  SshConfig with_option = parse(text);
  ASSERT_TRUE(with_option.add_option("User=opt").ok());
  EXPECT_EQ(with_option.lookup("n12").user, "opt");
  EXPECT_EQ(with_option.lookup("n12").port, 3012);
}

TEST(SshConfig, EmptyIncludeIsAnError) {
  SshConfig c;
  auto r = c.add_text("Include \"\"\n", "f", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("empty"), std::string::npos) << r.error();
}

TEST(SshConfig, MissingFileIsEmpty) {
  SshConfig c;
  EXPECT_TRUE(c.add_file("/nonexistent/pdx/ssh_config", true).ok());
}

TEST(SshConfig, ADirectoryOrADeviceIsAnErrorNotAnEmptyFile) {
  test::TempDir scratch;
  SshConfig c;
  EXPECT_EQ(c.add_file(scratch.path().string(), true).error(),
            "cannot read ssh config " + scratch.path().string() + ": is a directory");
  EXPECT_EQ(c.add_file("/dev/zero", true).error(),
            "cannot read ssh config /dev/zero: not a regular file");
}

TEST(SshConfig, IncludeSkipsDirectoriesAndRefusesDevices) {
  test::TempDir scratch;
  const auto& dir = scratch.path();
  std::filesystem::create_directory(dir / "conf.d");
  std::filesystem::create_directory(dir / "conf.d" / "sub");
  std::ofstream(dir / "conf.d" / "a") << "User included\n";
  EXPECT_EQ(parse("Include " + (dir / "conf.d" / "*").string() + "\n").lookup("h").user,
            "included");
  SshConfig c;
  EXPECT_EQ(c.add_text("Include /dev/zero\n", "cfg", true).error(),
            "cannot read ssh config /dev/zero: not a regular file");
}

TEST(SshConfig, ExpandTokens) {
  TokenValues v{"/home/me", "me", "node1", "root", "n1", 2222};
  EXPECT_EQ(expand_tokens("~/.ssh/id_%r@%h:%p", v), "/home/me/.ssh/id_root@node1:2222");
  EXPECT_EQ(expand_tokens("%d/%u/%n/%%", v), "/home/me/me/n1/%");
  EXPECT_EQ(expand_tokens("/abs/~x", v), "/abs/~x");
}

TEST(SshConfig, ProxyJumpAndProxyCommandShareOneSlotFirstWins) {
  auto c = parse(
      "Host a\n  ProxyCommand nc %h %p\nHost b\n  ProxyJump none\n"
      "Host *\n  ProxyJump bob@bastion:2222,gw\n");
  EXPECT_EQ(c.lookup("a").proxy_command, "nc %h %p");
  EXPECT_EQ(c.lookup("a").proxy_jump, "");  // ProxyCommand came first
  EXPECT_EQ(c.lookup("b").proxy_jump, "");  // none came first
  EXPECT_EQ(c.lookup("b").proxy_command, "");
  EXPECT_EQ(c.lookup("c").proxy_jump, "bob@bastion:2222,gw");
  SshConfig o;
  ASSERT_TRUE(o.add_option("ProxyCommand=none").ok());
  ASSERT_TRUE(o.add_text("ProxyJump gw\n", "f", true).ok());
  EXPECT_EQ(o.lookup("x").proxy_jump, "");  // -o ProxyCommand none wins over the file
}

TEST(SshConfig, ParseJumps) {
  auto hops = parse_jumps("bob@bastion:2222, gw ,ssh://eve@[::1]:23,[fe80::1]");
  ASSERT_TRUE(hops.ok()) << hops.error();
  ASSERT_EQ(hops->size(), 4u);
  EXPECT_EQ((*hops)[0].user, "bob");
  EXPECT_EQ((*hops)[0].host, "bastion");
  EXPECT_EQ((*hops)[0].port, 2222);
  EXPECT_EQ((*hops)[1].host, "gw");
  EXPECT_EQ((*hops)[1].port, 0);
  EXPECT_EQ((*hops)[2].user, "eve");
  EXPECT_EQ((*hops)[2].host, "::1");
  EXPECT_EQ((*hops)[2].port, 23);
  EXPECT_EQ((*hops)[3].host, "fe80::1");
  for (const char* bad : {"", "a,,b", "@h", "h:0", "h:x", "[::1", "a,none", "a b"})
    EXPECT_FALSE(parse_jumps(bad).ok()) << bad;
}

TEST(SshConfig, BadProxyOptionsAreErrors) {
  SshConfig c;
  EXPECT_FALSE(c.add_option("ProxyJump=a,,b").ok());
  EXPECT_FALSE(c.add_option("ProxyCommand=nc %h %x").ok());
  EXPECT_FALSE(c.add_option("ProxyCommand=nc %h %").ok());
  EXPECT_FALSE(c.add_option("ProxyUseFdpass=yes").ok());
  EXPECT_TRUE(c.add_option("ProxyCommand=nc %h %p %r %n %%").ok());
  EXPECT_TRUE(c.add_option("ProxyJump=none").ok());
  EXPECT_FALSE(c.add_text("Host x\n  ProxyJump a:99999\n", "f", true).ok());
}

TEST(SshConfig, SplitWords) {
  EXPECT_EQ(split_words("a  \"b c\" d"), (std::vector<std::string>{"a", "b c", "d"}));
  EXPECT_EQ(split_words(""), std::vector<std::string>{});
}

TEST(SshConfig, ControlKeywords) {
  SshConfig c = parse(
      "Host a\n  ControlMaster AUTO\n  ControlPersist 10m\n  ControlPath ~/.ssh/cm-%C\n"
      "Host b\n  ControlPersist no\nHost c\n  ControlPersist yes\n  ControlPath none\n");
  HostConfig a = c.lookup("a");
  EXPECT_EQ(a.control_master, "auto");
  EXPECT_EQ(a.control_persist, std::chrono::seconds(600));
  EXPECT_EQ(a.control_path, "~/.ssh/cm-%C");
  EXPECT_FALSE(c.lookup("b").control_persist);
  EXPECT_EQ(c.lookup("c").control_persist, std::chrono::seconds(0));  // yes: for ever
  EXPECT_EQ(c.lookup("c").control_path, "none");
  SshConfig o;
  EXPECT_FALSE(o.add_option("ControlMaster=sometimes").ok());
  EXPECT_FALSE(o.add_option("ControlPersist=10x").ok());
  EXPECT_TRUE(o.add_option("ControlPersist=1h30m").ok());
  EXPECT_EQ(o.lookup("x").control_persist, std::chrono::seconds(5400));
}

TEST(SshConfig, ServerAliveKeywords) {
  SshConfig c = parse(
      "Host a\n  ServerAliveInterval 1m\n  ServerAliveCountMax 0\nHost *\n"
      "  ServerAliveInterval 5\n");
  EXPECT_EQ(c.lookup("a").server_alive_interval, std::chrono::seconds(60));
  EXPECT_EQ(c.lookup("a").server_alive_count_max, 0);
  EXPECT_EQ(c.lookup("b").server_alive_interval, std::chrono::seconds(5));
  EXPECT_EQ(c.lookup("b").server_alive_count_max, 3);  // ssh's default
  SshConfig o;
  EXPECT_FALSE(o.add_option("ServerAliveInterval=often").ok());
  EXPECT_FALSE(o.add_option("ServerAliveCountMax=-1").ok());
  EXPECT_FALSE(o.add_option("ServerAliveCountMax=3x").ok());
  EXPECT_TRUE(o.add_option("ServerAliveCountMax=2").ok());
  EXPECT_EQ(o.lookup("x").server_alive_count_max, 2);
  EXPECT_EQ(o.lookup("x").server_alive_interval, std::chrono::seconds(0));
}

TEST(SshConfig, SshTimes) {
  std::chrono::seconds t{};
  EXPECT_TRUE(parse_ssh_time("90", t));
  EXPECT_EQ(t.count(), 90);
  EXPECT_TRUE(parse_ssh_time("1w1d1h1m1s", t));
  EXPECT_EQ(t.count(), 604800 + 86400 + 3600 + 60 + 1);
  for (const char* bad : {"", "m", "10q", "-5", "1.5h"})
    EXPECT_FALSE(parse_ssh_time(bad, t)) << bad;
}

}  // namespace
}  // namespace pdx
