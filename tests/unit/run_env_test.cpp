#include "core/run_env.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

std::vector<Host> three_hosts() {
  return {{"node01", "", 0, 8}, {"node02", "alice", 2222, 0}, {"node03", "", 0, 4}};
}

TEST(PlaceEnv, TellsEachHostItsPlace) {
  auto env = place_env(three_hosts(), 2);
  std::vector<EnvVar> want = {{"PDX_HOST", "node03"},
                              {"PDX_RANK", "2"},
                              {"PDX_NHOSTS", "3"},
                              {"PDX_MASTER", "node01"},
                              {"PDX_SLOTS", "4"}};
  EXPECT_EQ(env, want);
}

TEST(PlaceEnv, NoSlotsWhenTheHostfileGaveNone) {
  for (const auto& [key, value] : place_env(three_hosts(), 1)) EXPECT_NE(key, "PDX_SLOTS");
}

TEST(ParseEnvAssignment, SplitsAtFirstEquals) {
  EXPECT_EQ(parse_env_assignment("A=b=c"), (EnvVar{"A", "b=c"}));
  EXPECT_EQ(parse_env_assignment("EMPTY="), (EnvVar{"EMPTY", ""}));
}

TEST(ParseEnvAssignment, RejectsBadNames) {
  EXPECT_THROW(parse_env_assignment("novalue"), UsageError);
  EXPECT_THROW(parse_env_assignment("=x"), UsageError);
  EXPECT_THROW(parse_env_assignment("1A=x"), UsageError);
  EXPECT_THROW(parse_env_assignment("A;rm=x"), UsageError);
}

TEST(ReadEnvFile, CommentsBlanksAndExport) {
  test::TempDir scratch;
  const auto& dir = scratch.path();
  auto path = (dir / "env").string();
  std::ofstream(path) << "# comment\n\nexport A=1\n  B=two words\n";
  std::vector<EnvVar> want = {{"A", "1"}, {"B", "two words"}};
  EXPECT_EQ(read_env_file(path), want);
  std::ofstream(path) << "A=1\nbad line\n";
  try {
    read_env_file(path);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_env_file((dir / "missing").string()), UsageError);
}

TEST(ReadEnvFile, ADirectoryIsAnErrorNotAnEmptyFile) {
  test::TempDir scratch;
  try {
    read_env_file(scratch.path().string());
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--env-file " + scratch.path().string() + ": is a directory");
  }
}

TEST(SubstituteExec, PdshPercentSet) {
  Host h{"node07", "", 0, 0};
  EXPECT_EQ(substitute_exec("rsync -a d %h:/x # %u %n %% %s %", h, "bob", 6),
            "rsync -a d node07:/x # bob 6 % %s %");
}

TEST(SubstituteExec, LeavesPrintfFormatsAlone) {
  Host h{"n", "", 0, 0};
  EXPECT_EQ(substitute_exec("date +%s; printf '%d %5s'", h, "u", 0), "date +%s; printf '%d %5s'");
}

}  // namespace
}  // namespace pdx

namespace pdx {
namespace {

TEST(SubstituteExec, HostileUserIsQuoted) {
  Host h{"n", "", 0, 0};
  EXPECT_EQ(substitute_exec("echo %u", h, "x;echo INJECTED", 0), "echo 'x;echo INJECTED'");
}

}  // namespace
}  // namespace pdx
