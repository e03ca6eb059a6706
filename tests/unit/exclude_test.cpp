#include "distribute/sync/exclude.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

ExcludeRules rules(const std::vector<std::string>& patterns) {
  auto parsed = ExcludeRules::parse(patterns);
  EXPECT_TRUE(parsed.ok());
  return *parsed;
}

TEST(ExcludeTest, APatternWithoutASlashMatchesANameAtAnyDepth) {
  ExcludeRules r = rules({"*.o"});
  EXPECT_TRUE(r.matches("main.o", false));
  EXPECT_TRUE(r.matches("src/deep/x.o", false));
  EXPECT_TRUE(r.matches("dir.o", true));
  EXPECT_FALSE(r.matches("main.c", false));
  EXPECT_FALSE(r.matches("x.o/main.c", false));  // matches() is the name itself only
  EXPECT_TRUE(r.hidden("x.o/main.c", false));    // hidden() looks at the directories above too
}

TEST(ExcludeTest, ALeadingSlashAnchorsAtTheTransferRoot) {
  ExcludeRules r = rules({"/build"});
  EXPECT_TRUE(r.matches("build", true));
  EXPECT_FALSE(r.matches("src/build", true));
  EXPECT_TRUE(r.hidden("build/out/a", false));
  EXPECT_FALSE(r.hidden("src/build/a", false));
  ExcludeRules deep = rules({"/src/*.tmp"});
  EXPECT_TRUE(deep.matches("src/a.tmp", false));
  EXPECT_FALSE(deep.matches("src/sub/a.tmp", false));  // '*' never matches a '/'
  EXPECT_FALSE(deep.matches("x/src/a.tmp", false));
}

TEST(ExcludeTest, ASlashInsideMatchesTheEndOfTheNameOnAComponentBoundary) {
  ExcludeRules r = rules({"logs/*.log"});
  EXPECT_TRUE(r.matches("logs/a.log", false));
  EXPECT_TRUE(r.matches("x/y/logs/a.log", false));
  EXPECT_FALSE(r.matches("oldlogs/a.log", false));
  EXPECT_FALSE(r.matches("logs/sub/a.log", false));
}

TEST(ExcludeTest, ATrailingSlashMatchesOnlyDirectories) {
  ExcludeRules r = rules({"cache/"});
  EXPECT_TRUE(r.matches("cache", true));
  EXPECT_TRUE(r.matches("a/cache", true));
  EXPECT_FALSE(r.matches("cache", false));
  EXPECT_TRUE(r.hidden("a/cache/f", false));
  EXPECT_FALSE(r.hidden("a/cache", false));  // a file named cache is sent
}

TEST(ExcludeTest, WildcardsAndBracketsAreFnmatchs) {
  ExcludeRules r = rules({"?.bin", "[ab]*", "\\*star"});
  EXPECT_TRUE(r.matches("x.bin", false));
  EXPECT_FALSE(r.matches("xy.bin", false));
  EXPECT_TRUE(r.matches("d/apple", false));
  EXPECT_TRUE(r.matches("banana", false));
  EXPECT_FALSE(r.matches("cherry", false));
  EXPECT_TRUE(r.matches("*star", false));
  EXPECT_FALSE(r.matches("xstar", false));
  EXPECT_TRUE(rules({"*"}).matches(".hidden", false));  // as rsync: '*' matches a leading dot
}

TEST(ExcludeTest, NoRulesHideNothing) {
  ExcludeRules r = rules({});
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.hidden("a/b", false));
  EXPECT_FALSE(rules({"*"}).hidden("", true));  // DEST itself is never hidden
}

TEST(ExcludeTest, AnEmptyPatternIsAUsageError) {
  for (const char* bad : {"", "/", "//", "//a", "///a/"}) {
    auto parsed = ExcludeRules::parse({bad});
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error_kind(), ErrorKind::bad_input);
    EXPECT_NE(parsed.error().find("not a pattern"), std::string::npos);
  }
}

}  // namespace
}  // namespace pdx
