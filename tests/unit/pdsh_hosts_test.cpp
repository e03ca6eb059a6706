#include "core/pdsh_hosts.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using Names = std::vector<std::string>;

Names names(const std::vector<std::string>& include, const std::vector<std::string>& exclude = {},
            const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  Names out;
  for (auto& t : pdsh_targets(include, exclude, in)) out.push_back(t.name);
  return out;
}

TEST(PdshTargets, KeepsOrderAndDuplicatesAndDropsFirstOccurrencesExcluded) {
  EXPECT_EQ(names({"n[1-3],n1"}), (Names{"n1", "n2", "n3", "n1"}));
  EXPECT_EQ(names({"n[1-3],n2,n3"}, {"n2"}), (Names{"n1", "n3", "n2", "n3"}));
  EXPECT_EQ(names({"n[1-3],-n2"}), (Names{"n1", "n3"}));
}

TEST(PdshTargets, RegexesFilterAfterAllTerms) {
  EXPECT_EQ(names({"n[01-12],/0$/"}), (Names{"n10"}));
  EXPECT_EQ(names({"n[1-12]"}, {"/1$/"}),
            (Names{"n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n12"}));
  EXPECT_THROW(names({"n1,/(/"}), UsageError);
}

TEST(PdshTargets, RcmdAndUserPrefixes) {
  std::istringstream in;
  auto t = pdsh_targets({"exec:n[1-2],ssh:bob@n3,u@n4,::1"}, {}, in);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].rcmd, "exec");
  EXPECT_EQ(t[1].name, "n2");
  EXPECT_EQ(t[2].rcmd, "ssh");
  EXPECT_EQ(t[2].user, "bob");
  EXPECT_EQ(t[3].user, "u");
  EXPECT_EQ(t[3].rcmd, "");
  EXPECT_EQ(t[4].name, "::1");
  EXPECT_THROW(pdsh_targets({"u@exec:n1"}, {}, in), UsageError);
}

TEST(PdshTargets, UnclosedBracketIsALiteralNameAndABadRangeAnError) {
  EXPECT_EQ(names({"h[1-2"}), (Names{"h[1-2"}));
  EXPECT_THROW(names({"n[5-1]"}), UsageError);
}

TEST(PdshTargets, StdinAndIncludes) {
  test::TempDir dir;
  std::string path = dir.path().string();
  std::string top = path + "/top";
  std::ofstream(path + "/more") << "m1,m2 m3\n#include more\n";  // itself: read once
  std::ofstream(top) << "a1\n#include more\n  # c\nb[1-2] # x\n#include\n";
  EXPECT_EQ(names({"^" + top}), (Names{"a1", "m1", "m2", "m3", "b1", "b2"}));
  std::ofstream(path + "/plain") << "p1\n";
  EXPECT_EQ(names({"-"}, {}, "x1\n#include " + path + "/plain\n"), (Names{"x1", "p1"}));
  EXPECT_THROW(names({"^" + path + "/missing"}), UsageError);
  EXPECT_THROW(names({"-"}, {}, "#include ./surely-missing\n"), UsageError);
  setenv("WCOLL", top.c_str(), 1);
  EXPECT_EQ(names({"/^b/"}), (Names{"b1", "b2"}));  // only a regex: WCOLL's hosts, filtered
  unsetenv("WCOLL");
  EXPECT_EQ(names({"/^b/"}), Names{});
}

TEST(PdshRangedString, FoldsAsPdshHostlistDoes) {
  EXPECT_EQ(pdsh_ranged_string({"n1", "n2", "n3", "n5", "m1", "n1"}), "n[1-3,5],m1,n1");
  EXPECT_EQ(pdsh_ranged_string({"n9", "n10", "n11", "n011", "n012"}), "n[9-11,011-012]");
  EXPECT_EQ(pdsh_ranged_string({"a", "b", "a", "n01", "n1"}), "a,b,a,n[01,1]");
  EXPECT_EQ(pdsh_ranged_string({"127.0.0.1", "127.0.0.2", "127.0.0.4"}), "127.0.0.[1-2,4]");
  EXPECT_EQ(pdsh_ranged_string({"h[1-2"}), "h[1-2");
  EXPECT_EQ(pdsh_ranged_string({}), "");
}

}  // namespace
}  // namespace pdx
