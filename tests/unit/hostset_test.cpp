#include "core/hostset.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

namespace pdx {
namespace {

std::vector<std::string> labels(const std::vector<Host>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h.label());
  return out;
}

std::vector<std::string> expand(std::string_view expr) {
  return labels(expand_hosts(expr));
}

using Names = std::vector<std::string>;

/// The UsageError message expand_hosts(expr) throws; fails the test when it throws nothing.
std::string error_of(std::string_view expr) {
  try {
    expand_hosts(expr);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << expr;
  return {};
}

std::string temp_file(const std::string& name, const std::string& text) {
  const char* base = std::getenv("PDX_TEST_TMP");
  auto dir = std::filesystem::path(base ? base : "/tmp") / "hostset_test";
  std::filesystem::create_directories(dir);
  auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

/// Sets an environment variable for one test and restores it after.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~EnvVar() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ExpandHosts, CommaSeparatedNames) {
  EXPECT_EQ(expand("host1,host2"), (Names{"host1", "host2"}));
  EXPECT_EQ(expand(" a , b ,,c,"), (Names{"a", "b", "c"}));
}

TEST(ExpandHosts, RangesKeepPadding) {
  EXPECT_EQ(expand("node[01-03]"), (Names{"node01", "node02", "node03"}));
  EXPECT_EQ(expand("node[8-10]"), (Names{"node8", "node9", "node10"}));
  EXPECT_EQ(expand("node[08-10]"), (Names{"node08", "node09", "node10"}));
  EXPECT_EQ(expand("n[0-1]"), (Names{"n0", "n1"}));
  EXPECT_EQ(expand("n[007]"), (Names{"n007"}));
  EXPECT_EQ(expand("n[098-100]"), (Names{"n098", "n099", "n100"}));
}

// Padding is not: both bounds plain, of whatever digits (ClusterShell's rule).
TEST(ExpandHosts, UnpaddedBoundsMayHaveDifferentDigits) {
  EXPECT_EQ(expand("n[9-10]"), (Names{"n9", "n10"}));
  EXPECT_EQ(expand("n[0-10]").size(), 11u);
  EXPECT_EQ(expand("n[0-0]"), (Names{"n0"}));
  EXPECT_EQ(expand("n[00-00]"), (Names{"n00"}));
}

TEST(ExpandHosts, StepRanges) {
  EXPECT_EQ(expand("n[1-10/2]"), (Names{"n1", "n3", "n5", "n7", "n9"}));
  EXPECT_EQ(expand("n[1-9/2]"), (Names{"n1", "n3", "n5", "n7", "n9"}));
  EXPECT_EQ(expand("n[1-10/3,20]"), (Names{"n1", "n4", "n7", "n10", "n20"}));
  EXPECT_EQ(expand("n[01-10/2]"), (Names{"n01", "n03", "n05", "n07", "n09"}));
  EXPECT_EQ(expand("n[098-102/2]"), (Names{"n098", "n100", "n102"}));
  EXPECT_EQ(expand("n[1-3/5]"), (Names{"n1"}));
  EXPECT_EQ(expand("n[1-2/1]"), (Names{"n1", "n2"}));
  EXPECT_EQ(expand("r[1-3/2]-n[0-4/4]"), (Names{"r1-n0", "r1-n4", "r3-n0", "r3-n4"}));
  EXPECT_EQ(expand("n[0-999999999999999999/999999999999999999]"),
            (Names{"n0", "n999999999999999999"}));
  EXPECT_EQ(expand("u@n[1-5/2]:22,-n3"), (Names{"u@n1:22", "u@n5:22"}));
}

TEST(ExpandHosts, ListsInBrackets) {
  EXPECT_EQ(expand("n[1-3,7,10-11]"), (Names{"n1", "n2", "n3", "n7", "n10", "n11"}));
}

TEST(ExpandHosts, SeveralBracketsMakeAProduct) {
  EXPECT_EQ(expand("rack[1-2]-node[01-02]"),
            (Names{"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"}));
  EXPECT_EQ(expand("[1-2]x"), (Names{"1x", "2x"}));
}

TEST(ExpandHosts, BracketsAnywhereInAnAddress) {
  EXPECT_EQ(expand("127.0.0.[1-3]"), (Names{"127.0.0.1", "127.0.0.2", "127.0.0.3"}));
  EXPECT_EQ(expand("10.0.[0-1].[1-2]"), (Names{"10.0.0.1", "10.0.0.2", "10.0.1.1", "10.0.1.2"}));
}

TEST(ExpandHosts, OrderOfFirstAppearanceWithoutDuplicates) {
  EXPECT_EQ(expand("b,a,b,n[2-3],n[1-2],n[1,1]"), (Names{"b", "a", "n2", "n3", "n1"}));
}

TEST(ExpandHosts, ExclusionInsideTheExpression) {
  EXPECT_EQ(expand("node[01-04],-node02"), (Names{"node01", "node03", "node04"}));
  EXPECT_EQ(expand("-node02,node[01-03]"), (Names{"node01", "node03"}));
  EXPECT_EQ(expand("n[1-6],-n[2-5]"), (Names{"n1", "n6"}));
}

TEST(ExpandHosts, ExclusionWithoutUserOrPortMatchesEveryUserAndPort) {
  EXPECT_EQ(expand("root@n1:22,n1,n2,-n1"), (Names{"n2"}));
  EXPECT_EQ(expand("root@n1,bob@n1,n2,-bob@n1"), (Names{"root@n1", "n2"}));
  EXPECT_EQ(expand("n1:22,n1:23,-n1:23"), (Names{"n1:22"}));
}

TEST(ExpandHosts, UserAndPort) {
  auto hosts = expand_hosts("root@node1:2222");
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].user, "root");
  EXPECT_EQ(hosts[0].name, "node1");
  EXPECT_EQ(hosts[0].port, 2222);
  EXPECT_EQ(hosts[0].label(), "root@node1:2222");
  EXPECT_EQ(expand("u@n[1-2]:22"), (Names{"u@n1:22", "u@n2:22"}));
}

TEST(ExpandHosts, SameNameWithDifferentUserOrPortIsADifferentHost) {
  EXPECT_EQ(expand("n1,n1:22,a@n1,a@n1:22,n1:22"), (Names{"n1", "n1:22", "a@n1", "a@n1:22"}));
}

TEST(ExpandHosts, Ipv6) {
  auto hosts = expand_hosts("[::1]:22,user@[fe80::1]:2222,::1,[fe80::2],fe80::3%eth0");
  ASSERT_EQ(hosts.size(), 5u);
  EXPECT_EQ(hosts[0].name, "::1");
  EXPECT_EQ(hosts[0].port, 22);
  EXPECT_EQ(hosts[0].label(), "[::1]:22");
  EXPECT_EQ(hosts[1].user, "user");
  EXPECT_EQ(hosts[1].name, "fe80::1");
  EXPECT_EQ(hosts[1].port, 2222);
  EXPECT_EQ(hosts[2].name, "::1");
  EXPECT_EQ(hosts[2].port, 0);
  EXPECT_EQ(hosts[2].label(), "::1");
  EXPECT_EQ(hosts[3].label(), "fe80::2");
  EXPECT_EQ(hosts[4].name, "fe80::3%eth0");
}

TEST(ExpandHosts, HostfileTerm) {
  auto path = temp_file("term.hosts", "a\nb slots=4\n");
  auto hosts = expand_hosts("x,^" + path + ",a");
  EXPECT_EQ(labels(hosts), (Names{"x", "a", "b"}));
  EXPECT_EQ(hosts[2].slots, 4);
  EXPECT_EQ(expand("^" + path + ",-a"), (Names{"b"}));
  EXPECT_EQ(expand("a,b,c,-^" + path), (Names{"c"}));
}

TEST(ExpandHosts, HostfileLinesAreExpressions) {
  auto path =
      temp_file("expr.hosts", "gpu[01-02] slots=8\nroot@[::1]:2222\nu@n9:22,n10\nn[1-3],-n2\n");
  auto hosts = expand_hosts("^" + path);
  EXPECT_EQ(labels(hosts),
            (Names{"gpu01", "gpu02", "root@[::1]:2222", "u@n9:22", "n10", "n1", "n3"}));
  EXPECT_EQ(hosts[1].slots, 8);
  EXPECT_EQ(hosts[2].slots, 0);
}

TEST(ExpandHosts, HostfileFirstAppearanceKeepsItsSlots) {
  auto hosts = expand_hosts("^" + temp_file("dup.hosts", "a slots=2\nb\na slots=4\n"));
  EXPECT_EQ(labels(hosts), (Names{"a", "b"}));
  EXPECT_EQ(hosts[0].slots, 2);
}

TEST(ExpandHostsError, BadHostfileExpressionNamesFileAndLine) {
  auto host = temp_file("bad.hosts", "ok\nbad;host\n");
  EXPECT_EQ(error_of("^" + host), host +
                                      ":2: illegal character ';' in host name 'bad;host' "
                                      "(use letters, digits, '-', '.', '_')");
  auto range = temp_file("range.hosts", "n[3-1]\n");
  EXPECT_EQ(error_of("^" + range), range + ":1: reversed range '3-1' in 'n[3-1]'");
  auto slots = temp_file("slots.hosts", "a slots=0\n");
  EXPECT_EQ(error_of("^" + slots), slots + ":1: bad 'slots=0' (expected N >= 1)");
}

// Not timed here (CI does not time things); it takes about 0.2 s of CPU.
TEST(ExpandHosts, TheLargestRange) {
  auto hosts = expand_hosts("node[1-1000000]");
  ASSERT_EQ(hosts.size(), kMaxHosts);
  EXPECT_EQ(hosts.back().name, "node1000000");
}

TEST(ExpandHostsError, UnbalancedBrackets) {
  EXPECT_EQ(error_of("node[1-3"), "unbalanced '[' in 'node[1-3'");
  EXPECT_EQ(error_of("node1-3]"), "unbalanced ']' in 'node1-3]'");
  EXPECT_EQ(error_of("n[1[2]]"), "nested '[' in 'n[1[2]]'");
  EXPECT_EQ(error_of("u@[::1"), "unbalanced '[' in 'u@[::1'");
}

TEST(ExpandHostsError, BadRanges) {
  EXPECT_EQ(error_of("n[5-1]"), "reversed range '5-1' in 'n[5-1]'");
  EXPECT_EQ(error_of("n[a-c]"),
            "bad range 'a-c' in 'n[a-c]' (expected N, N-M or N-M/S, numbers of at most 18 digits)");
  EXPECT_EQ(error_of("n[]"), "empty brackets in 'n[]'");
  EXPECT_EQ(error_of("n[ ]"), "empty brackets in 'n[ ]'");
  EXPECT_EQ(error_of("n[1,,2]"), "empty range in 'n[1,,2]'");
  EXPECT_EQ(error_of("n[1-]").substr(0, 18), "bad range '1-' in ");
  EXPECT_EQ(error_of("n[-2]").substr(0, 18), "bad range '-2' in ");
  EXPECT_EQ(error_of("n[1-2-3]").substr(0, 21), "bad range '1-2-3' in ");
  EXPECT_EQ(error_of("n[1234567890123456789]").substr(0, 10), "bad range ");
}

// pdsh pads these to the low bound's digits, pdx used the wider bound's; ClusterShell refuses them.
TEST(ExpandHostsError, BoundsPaddedDifferently) {
  EXPECT_EQ(error_of("n[8-012]"),
            "'n[8-012]': the bounds are padded differently (8 has 1 digit, 012 has 3): "
            "write n[008-012] or n[8-12]");
  EXPECT_EQ(error_of("n[1-010]"),
            "'n[1-010]': the bounds are padded differently (1 has 1 digit, 010 has 3): "
            "write n[001-010] or n[1-10]");
  EXPECT_EQ(error_of("n[01-1]"),
            "'n[01-1]': the bounds are padded differently (01 has 2 digits, 1 has 1): "
            "write n01 or n1");
  EXPECT_EQ(error_of("c[0-00]"),
            "'c[0-00]': the bounds are padded differently (0 has 1 digit, 00 has 2): "
            "write c00 or c0");
  // Padded to 2 digits, 100 stays 100 (pdsh's reading).
  EXPECT_EQ(error_of("n[09-100]"),
            "'n[09-100]': the bounds are padded differently (09 has 2 digits, 100 has 3): "
            "write n[009-100] or n[09-99,100]");
  EXPECT_EQ(error_of("n[01-005]"),
            "'n[01-005]': the bounds are padded differently (01 has 2 digits, 005 has 3): "
            "write n[001-005] or n[01-05]");
  EXPECT_EQ(error_of("n[3,1-010/3]-ib"),
            "'n[3,1-010/3]-ib': the bounds are padded differently (1 has 1 digit, 010 has 3): "
            "write n[3,001-010/3]-ib or n[3,1-10/3]-ib");
  EXPECT_EQ(error_of("n[09-101/3]"),
            "'n[09-101/3]': the bounds are padded differently (09 has 2 digits, 101 has 3): "
            "write n[009-099/3] or n[09-99/3]");
  EXPECT_EQ(error_of("n[08-100/4]"),
            "'n[08-100/4]': the bounds are padded differently (08 has 2 digits, 100 has 3): "
            "write n[008-100/4] or n[08-96/4,100]");
  EXPECT_EQ(error_of("root@n[007-12]:22"),
            "'n[007-12]': the bounds are padded differently (007 has 3 digits, 12 has 2): "
            "write n[007-012] or n[07-12]");
}

TEST(ExpandHostsError, BadSteps) {
  const std::string expected = " (expected N-M/S, S a number from 1 of at most 18 digits)";
  EXPECT_EQ(error_of("n[1-10/0]"), "bad step '/0' in 'n[1-10/0]'" + expected);
  EXPECT_EQ(error_of("n[1-10/]"), "bad step '/' in 'n[1-10/]'" + expected);
  EXPECT_EQ(error_of("n[1-10/-1]"), "bad step '/-1' in 'n[1-10/-1]'" + expected);
  EXPECT_EQ(error_of("n[1-10/x]"), "bad step '/x' in 'n[1-10/x]'" + expected);
  EXPECT_EQ(error_of("n[1-10/2/2]"), "bad step '/2/2' in 'n[1-10/2/2]'" + expected);
  EXPECT_EQ(error_of("n[1-10/1234567890123456789]"),
            "bad step '/1234567890123456789' in 'n[1-10/1234567890123456789]'" + expected);
  EXPECT_EQ(error_of("n[5/2]"),
            "step '/2' after the single number '5' in 'n[5/2]' (a step needs a range: N-M/S)");
  EXPECT_EQ(error_of("n[10-1/2]"), "reversed range '10-1/2' in 'n[10-1/2]'");
  EXPECT_EQ(error_of("n[/2]").substr(0, 17), "bad range '/2' in");
  EXPECT_EQ(error_of("n1/2"),
            "illegal character '/' in host name 'n1/2' (use letters, digits, '-', '.', '_')");
}

// A huge range fails at once, from its size alone (it would otherwise hang or run out of memory).
TEST(ExpandHostsError, TooManyHosts) {
  EXPECT_EQ(error_of("n[1-1000001]"), "'n[1-1000001]' names more than 1000000 hosts");
  EXPECT_EQ(error_of("n[0-999999999999999999]"),
            "'n[0-999999999999999999]' names more than 1000000 hosts");
  EXPECT_EQ(error_of("n[1-1000]-[1-1001]"), "'n[1-1000]-[1-1001]' names more than 1000000 hosts");
  EXPECT_EQ(error_of("n[1-600000,1-600000]"),
            "'n[1-600000,1-600000]' names more than 1000000 hosts");
  EXPECT_EQ(error_of("a[1-600000],b[1-600000]"),
            "'a[1-600000],b[1-600000]' names more than 1000000 hosts");
  EXPECT_EQ(expand_hosts("n[1-1000],n[1-1000]").size(), 1000u);
  // A step range is counted as its numbers, never expanded to be counted.
  EXPECT_EQ(error_of("n[1-20000000/10]"), "'n[1-20000000/10]' names more than 1000000 hosts");
  EXPECT_EQ(error_of("n[0-999999999999999999/2]"),
            "'n[0-999999999999999999/2]' names more than 1000000 hosts");
  EXPECT_EQ(error_of("n[1-2000/2]-[1-2000]"),
            "'n[1-2000/2]-[1-2000]' names more than 1000000 hosts");
}

TEST(ExpandHostsError, BadPorts) {
  EXPECT_EQ(error_of("n1:0"), "bad port '0' in 'n1:0' (expected 1-65535)");
  EXPECT_EQ(error_of("n1:65536"), "bad port '65536' in 'n1:65536' (expected 1-65535)");
  EXPECT_EQ(error_of("n1:ssh"), "bad port 'ssh' in 'n1:ssh' (expected 1-65535)");
  EXPECT_EQ(error_of("n1:"), "bad port '' in 'n1:' (expected 1-65535)");
  EXPECT_EQ(error_of("n1:9999999999"),
            "bad port '9999999999' in 'n1:9999999999' (expected 1-65535)");
  EXPECT_EQ(error_of("[::1]:0"), "bad port '0' in '[::1]:0' (expected 1-65535)");
  EXPECT_EQ(error_of("[::1]x"), "unexpected 'x' after ']' in '[::1]x'");
}

TEST(ExpandHostsError, IllegalCharacters) {
  EXPECT_EQ(error_of("a;b"),
            "illegal character ';' in host name 'a;b' (use letters, digits, '-', '.', '_')");
  for (std::string bad : {"a b", "a$b", "a'b", "a\"b", "a/b", "a`b", "a|b", "a&b", "a*b", "a\\b",
                          "a\nb", "a@b@c", "a!b"}) {
    EXPECT_NE(error_of(bad).find("illegal character"), std::string::npos) << bad;
  }
  EXPECT_EQ(
      error_of("a\tb"),
      "illegal character '\\x09' in host name 'a\\x09b' (use letters, digits, '-', '.', '_')");
  EXPECT_EQ(error_of("ro;ot@n1"),
            "illegal character ';' in user 'ro;ot@n1' (use letters, digits, '-', '.', '_')");
  EXPECT_EQ(error_of("@n1"), "empty user in '@n1'");
  EXPECT_EQ(error_of("u@"), "empty host name in 'u@'");
  EXPECT_EQ(error_of(":22"), "empty host name in ':22'");
  EXPECT_EQ(error_of("u@-oProxyCommand=x"), "host name '-oProxyCommand=x' starts with '-'");
  EXPECT_EQ(error_of("-oX@n1"), "'-oX@n1' names no hosts");
  EXPECT_EQ(error_of("--n1"), "host name '-n1' starts with '-'");
}

TEST(ExpandHostsError, BadIpv6) {
  EXPECT_EQ(error_of("[::g]:22"), "bad IPv6 address '::g' in '[::g]:22'");
  EXPECT_EQ(error_of("1:2:3"), "bad IPv6 address '1:2:3' in '1:2:3'");
  EXPECT_EQ(error_of("fe80::1%"), "empty IPv6 zone in 'fe80::1%'");
  EXPECT_NE(error_of("fe80::1%a;b").find("illegal character ';'"), std::string::npos);
}

TEST(ExpandHostsError, NoHosts) {
  EXPECT_EQ(error_of(""), "'' names no hosts");
  EXPECT_EQ(error_of(" , "), "' , ' names no hosts");
  EXPECT_EQ(error_of("-n1"), "'-n1' names no hosts");
  EXPECT_EQ(error_of("n[1-2],-n[1-2]"), "every host of 'n[1-2],-n[1-2]' is excluded");
  EXPECT_EQ(error_of("^"), "missing file name after '^' in '^'");
  EXPECT_EQ(error_of("n1,-"), "nothing to exclude after '-' in 'n1,-'");
}

TEST(ExpandHostsError, MissingHostfileIsNamed) {
  EXPECT_EQ(error_of("^/nonexistent/hosts"),
            "cannot read hostfile '/nonexistent/hosts': No such file or directory");
}

TEST(ResolveHosts, AllIncludesMinusAllExcludes) {
  EnvVar hosts("PDX_HOSTS", nullptr);
  auto result = resolve_hosts({"n[1-5]", "m1,-n2"}, {"n4", "n5,m[1-9]"});
  EXPECT_EQ(labels(result), (Names{"n1", "n3"}));
}

TEST(ResolveHosts, ExcludeFromAHostfile) {
  auto path = temp_file("exclude.hosts", "n2\n# not n3\nn4 # trailing\n");
  EXPECT_EQ(labels(resolve_hosts({"n[1-5]"}, {"^" + path})), (Names{"n1", "n3", "n5"}));
}

TEST(ResolveHosts, PdxHostsThenWcoll) {
  auto path = temp_file("wcoll.hosts", "w1\nw2\n");
  EnvVar wcoll("WCOLL", path.c_str());
  {
    EnvVar hosts("PDX_HOSTS", "p[1-2]");
    EXPECT_EQ(labels(resolve_hosts({}, {})), (Names{"p1", "p2"}));
    EXPECT_EQ(labels(resolve_hosts({"x"}, {})), (Names{"x"}));
  }
  {
    EnvVar hosts("PDX_HOSTS", "");
    EXPECT_EQ(labels(resolve_hosts({}, {"w1"})), (Names{"w2"}));
  }
}

TEST(ResolveHosts, Errors) {
  EnvVar hosts("PDX_HOSTS", nullptr);
  EnvVar wcoll("WCOLL", nullptr);
  auto message = [](const std::vector<std::string>& in, const std::vector<std::string>& ex) {
    try {
      resolve_hosts(in, ex);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({}, {}), "no hosts: use -w, PDX_HOSTS or WCOLL");
  EXPECT_EQ(message({"n1"}, {"n1"}), "no hosts left: every host is excluded");
  EXPECT_EQ(message({"-n1"}, {}), "no hosts: the host expressions only exclude");
  EXPECT_EQ(message({""}, {}), "empty host expression given to -w");
  EXPECT_EQ(message({"n1"}, {" "}), "empty host expression given to -x");
  EXPECT_EQ(message({"n1"}, {"-n2"}), "exclusion '-n2' inside an exclusion");
  EXPECT_EQ(message({"n[1-2"}, {}), "unbalanced '[' in 'n[1-2'");
  EnvVar bad_wcoll("WCOLL", "/nonexistent/wcoll");
  EXPECT_EQ(message({}, {}),
            "cannot read hostfile '/nonexistent/wcoll': No such file or directory");
}

TEST(HostLabel, NameNamePortAndBracketedV6) {
  EXPECT_EQ((Host{"n1", "", 0, 0}).label(), "n1");
  EXPECT_EQ((Host{"n1", "root", 22, 0}).label(), "root@n1:22");
  EXPECT_EQ((Host{"::1", "", 22, 0}).label(), "[::1]:22");
  EXPECT_EQ((Host{"::1", "", 0, 0}).label(), "::1");
}

TEST(HostList, KeepsOrderDropsDuplicatesIgnoresSlots) {
  HostList list;
  list.add(Host{"b", "", 0, 1}, "test");
  list.add(Host{"a", "", 0, 0}, "test");
  list.add(Host{"b", "", 0, 8}, "test");
  list.add(Host{"b", "u", 0, 0}, "test");
  EXPECT_TRUE(list.contains("", "b", 0));
  EXPECT_FALSE(list.contains("", "b", 22));
  auto hosts = list.take();
  EXPECT_EQ(labels(hosts), (Names{"b", "a", "u@b"}));
  EXPECT_EQ(hosts[0].slots, 1);
  EXPECT_EQ(list.size(), 0u);
  EXPECT_FALSE(list.contains("", "b", 0));
}

TEST(ExpandNames, PlainNamesWithoutUserOrPortParsing) {
  EXPECT_EQ(expand_names("n[1-2],x,n1"), (Names{"n1", "n2", "x"}));
  EXPECT_EQ(expand_names("127.0.0.[1-2]:22,[::1]:22,::1"),
            (Names{"127.0.0.1:22", "127.0.0.2:22", "[::1]:22", "::1"}));
  EXPECT_THROW(expand_names(""), UsageError);
  EXPECT_THROW(expand_names("n[2-1]"), UsageError);
  EXPECT_THROW(expand_names("n[1-1000001]"), UsageError);
}

}  // namespace
}  // namespace pdx
