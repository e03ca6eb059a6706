#include "core/genders.h"

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

// A database in the test's scratch directory, laid out as a cluster's /etc/genders.
constexpr const char* kDatabase =
    "# a test cluster\n"
    "n1 compute,gpu=a100,altname=e1\n"
    "n2 compute,gpu=h100,altname=e2\n"
    "n3 compute,pdsh_all_skip\n"
    "n4 login,pdsh_rcmd_type=exec\n"
    "n[5-6] compute,gpu=a100\n"
    "n7 pdsh_rcmd_type=bob@ssh\n";

std::string scratch_file(const std::string& name, const std::string& text) {
  const char* base = std::getenv("PDX_TEST_TMP");
  auto dir = std::filesystem::path(base ? base : "/tmp") / "genders_test";
  std::filesystem::create_directories(dir);
  auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

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

std::vector<std::string> labels(const std::vector<Host>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h.label());
  return out;
}

// The hosts for pdsh-style options: each "-g x" etc. as (letter, argument).
GendersHosts pick(std::vector<std::pair<char, std::string>> options,
                  std::vector<std::string> include = {}, std::vector<std::string> exclude = {}) {
  GendersOptions o;
  o.apply('F', scratch_file("genders", kDatabase));
  for (const auto& [c, arg] : options) EXPECT_TRUE(o.apply(c, arg));
  return genders_hosts(o, include, [&](const auto& in) { return resolve_hosts(in, exclude); });
}

using Names = std::vector<std::string>;

TEST(Genders, QueriesThroughLibgenders) {
  auto g = Genders::load(scratch_file("genders", kDatabase));
  ASSERT_TRUE(g) << g.error();
  EXPECT_EQ(*g->query("gpu=a100"), (Names{"n1", "n5", "n6"}));
  EXPECT_EQ(*g->query("compute&&~gpu"), (Names{"n3"}));
  EXPECT_EQ(g->query("").value().size(), 7u);
  EXPECT_EQ(g->other_name("n1"), "e1");
  EXPECT_EQ(g->other_name("e1"), "n1");
  EXPECT_EQ(g->other_name("n5"), "n5");
  EXPECT_EQ(g->value("e2", "gpu"), "h100");
  EXPECT_EQ(g->value("n3", "gpu"), std::nullopt);
  auto bad = g->query("gpu=~a1");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error_kind(), ErrorKind::bad_input);
  EXPECT_EQ(*g->query("login"), (Names{"n4"}));  // libgenders' lexer holds no leftover
}

TEST(Genders, MissingDatabaseNamesIt) {
  auto g = Genders::load("/nonexistent/genders");
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().find("/nonexistent/genders: "), std::string::npos) << g.error();
}

TEST(Genders, PathAsPdshFindsIt) {
  EnvVar dir("PDSH_GENDERS_DIR", nullptr);
  EXPECT_EQ(genders_path("/a/g"), "/a/g");
  EXPECT_EQ(genders_path("./g"), "./g");
  EXPECT_EQ(genders_path("g"), "/etc/g");
  EnvVar set("PDSH_GENDERS_DIR", "/srv");
  EXPECT_EQ(genders_path("g"), "/srv/g");
}

TEST(Genders, QueryFillsHostsUnderAltnames) {
  EXPECT_EQ(labels(pick({{'g', "compute"}}).hosts), (Names{"e1", "e2", "n3", "n5", "n6"}));
  EXPECT_EQ(labels(pick({{'g', "gpu=h100,login"}}).hosts), (Names{"e2", "n4"}));
  EXPECT_EQ(labels(pick({{'g', "gpu"}, {'i', ""}}).hosts), (Names{"n1", "n2", "n5", "n6"}));
}

TEST(Genders, AllSkipsPdshAllSkipOnlyWithLowerA) {
  EXPECT_EQ(labels(pick({{'a', ""}}).hosts), (Names{"e1", "e2", "n4", "n5", "n6", "bob@n7"}));
  EXPECT_EQ(pick({{'A', ""}}).hosts.size(), 7u);
  EXPECT_THROW(pick({{'a', ""}, {'g', "gpu"}}), UsageError);
}

TEST(Genders, DashXBeforeAltnamesDashXAfter) {
  // -x takes canonical names (pdsh applies it before the altnames); -X takes either.
  EXPECT_EQ(labels(pick({{'a', ""}}, {}, {"n1,n7"}).hosts), (Names{"e2", "n4", "n5", "n6"}));
  EXPECT_EQ(labels(pick({{'g', "compute"}, {'X', "gpu=h100"}}).hosts),
            (Names{"e1", "n3", "n5", "n6"}));
}

TEST(Genders, FiltersDashWInItsOrder) {
  auto run = pick({{'g', "compute"}}, {"n9,n2,e1,n4,n1"});
  EXPECT_EQ(labels(run.hosts), (Names{"n2", "e1", "n1"}));  // names as -w gave them
  EXPECT_EQ(labels(pick({{'X', "compute"}}, {"n1,n9"}).hosts), (Names{"n9"}));
  EXPECT_EQ(labels(pick({{'i', ""}}, {"n1,n9"}).hosts), (Names{"e1", "n9"}));
  EXPECT_THROW(pick({{'g', "login"}}, {"n1"}), UsageError);  // none left
}

TEST(Genders, RcmdTypeGivesUserAndWarnsOfOtherModules) {
  auto run = pick({}, {"n4,n7,alice@n7"});
  EXPECT_EQ(labels(run.hosts), (Names{"n4", "bob@n7", "alice@n7"}));  // -w's user wins
  auto warnings = run.warnings("ssh");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("gives n4 rcmd exec;"), std::string::npos) << warnings[0];
  EXPECT_EQ(run.warnings("exec").size(), 1u);  // n7 is ssh
  EXPECT_TRUE(pick({}, {"n4"}).warnings("exec").empty());
}

TEST(Genders, UnreadableDatabaseIsAnErrorOnlyWhenAskedFor) {
  GendersOptions o;
  o.apply('F', "/nonexistent/genders");
  auto as_given = [](const std::vector<std::string>& in) { return resolve_hosts(in, {}); };
  EXPECT_THROW(genders_hosts(o, {"n1"}, as_given), FatalError);
  GendersOptions none;
  EnvVar file("PDSH_GENDERS_FILE", "/nonexistent/genders");
  EXPECT_EQ(labels(genders_hosts(none, {"n1"}, as_given).hosts), (Names{"n1"}));
  EXPECT_FALSE(none.apply('w', "n1"));
}

}  // namespace
}  // namespace pdx
