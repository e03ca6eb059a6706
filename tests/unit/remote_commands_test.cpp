#include "distribute/remote_commands.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

std::string command(const std::vector<std::string>& remotes) {
  auto made = pull_command(remotes);
  EXPECT_TRUE(made) << made.error();
  return made ? *made : "";
}

TEST(RemoteCommands, PullNamesEachRemoteFromItsParent) {
  EXPECT_EQ(command({"/var/log/train.log"}), "tar -cf - -C /var/log ./train.log");
  EXPECT_EQ(command({"out"}), "tar -cf - -C \"$PWD\"/. ./out");
  EXPECT_EQ(command({"/x", "a/b"}), "tar -cf - -C / ./x -C \"$PWD\"/a ./b");
}

TEST(RemoteCommands, PullTrailingSlashMeansContents) {
  EXPECT_EQ(command({"out/run1/"}), "tar -cf - -C \"$PWD\"/out/run1 ./.");
  EXPECT_EQ(command({"/"}), "tar -cf - -C / ./.");
  EXPECT_EQ(command({"a/."}), "tar -cf - -C \"$PWD\"/a ./.");
}

TEST(RemoteCommands, PullQuotesAndNeverPassesForAnOption) {
  EXPECT_EQ(command({"-d/it's $(x)"}), "tar -cf - -C \"$PWD\"/-d './it'\\''s $(x)'");
  EXPECT_EQ(command({"-f"}), "tar -cf - -C \"$PWD\"/. ./-f");
}

TEST(RemoteCommands, PullSuffixRenamesTheTopNames) {
  EXPECT_EQ(*pull_command({"/var/log/train.log"}, ".n&1"),
            "tar -cf - '--transform=s|^\\./[^/][^/]*|&.n\\&1|S' -C /var/log ./train.log");
}

TEST(RemoteCommands, PullCanRefuseDirectoriesBeforeTarStarts) {
  EXPECT_EQ(*pull_command({"-d"}, "", Directories::refused),
            "if [ -d ./-d ]; then printf 'use -r to copy directories: %s\\n' -d >&2; exit 1; fi\n"
            "tar -cf - -C \"$PWD\"/. ./-d");
}

TEST(RemoteCommands, PullRefusesEmptyAndDotDot) {
  EXPECT_FALSE(pull_command({""}));
  auto up = pull_command({"a/.."});
  ASSERT_FALSE(up);
  EXPECT_EQ(up.error_kind(), ErrorKind::bad_input);
}

TEST(RemoteCommands, VerifyListsThenHashes) {
  std::string plain = verify_command("-dir x", false);
  EXPECT_NE(plain.find("cd './-dir x' 2>/dev/null || exit 3\n"), std::string::npos) << plain;
  EXPECT_NE(plain.find("-printf 's %s %P\\0'"), std::string::npos);
  EXPECT_EQ(plain.find("sha256sum"), std::string::npos);
  EXPECT_NE(verify_command("d", true).find("sha256sum -z --"), std::string::npos);
}

}  // namespace
}  // namespace pdx
