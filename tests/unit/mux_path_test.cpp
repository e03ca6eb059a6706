#include "transport/mux_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace pdx {
namespace {

ControlTarget target(std::string path) {
  ControlTarget t;
  t.path = std::move(path);
  t.hostname = "node01.cluster";
  t.user = "bob";
  t.alias = "node01";
  t.port = 2222;
  t.home = "/home/me";
  t.local_user = "me";
  return t;
}

TEST(MuxPath, ExpandsSshTokens) {
  EXPECT_EQ(*expand_control_path(target("~/.ssh/cm-%r@%h:%p")),
            "/home/me/.ssh/cm-bob@node01.cluster:2222");
  EXPECT_EQ(*expand_control_path(target("/s/%n-%u-%d-100%%")), "/s/node01-me-/home/me-100%");
  EXPECT_EQ(*expand_control_path(target("/s/%i")), "/s/" + std::to_string(::getuid()));
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::string local = name;
  EXPECT_EQ(*expand_control_path(target("%l|%L")), local + "|" + local.substr(0, local.find('.')));
}

TEST(MuxPath, HashTokenIsSshs) {
  // ssh's %C: the SHA-1 of %l%h%p%r in hex, the same for the same connection only.
  std::string c = *expand_control_path(target("%C"));
  EXPECT_EQ(c.size(), 40u);
  EXPECT_EQ(c.find_first_not_of("0123456789abcdef"), std::string::npos);
  auto other = target("%C");
  other.port = 22;
  EXPECT_NE(*expand_control_path(other), c);
  other = target("%C");
  other.alias = "elsewhere";  // not in %C
  EXPECT_EQ(*expand_control_path(other), c);
}

TEST(MuxPath, BadPathsAreRefused) {
  EXPECT_FALSE(expand_control_path(target("/s/%x")).ok());
  EXPECT_FALSE(expand_control_path(target("/s/%")).ok());
  EXPECT_FALSE(expand_control_path(target("/" + std::string(200, 'a'))).ok());  // sun_path
}

TEST(MuxPath, DirectoryMustBeTheUsersAlone) {
  namespace fs = std::filesystem;
  fs::path base = fs::temp_directory_path() / ("mux_path_test." + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "private");
  ::chmod((base / "private").c_str(), 0700);
  EXPECT_TRUE(check_control_path((base / "private/cm").string()).ok());
  ::chmod((base / "private").c_str(), 0750);
  auto open = check_control_path((base / "private/cm").string());
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().find("chmod 700"), std::string::npos) << open.error();
  ::chmod((base / "private").c_str(), 0700);
  fs::create_directory_symlink(base / "private", base / "link");
  EXPECT_FALSE(check_control_path((base / "link/cm").string()).ok());
  EXPECT_FALSE(check_control_path((base / "missing/cm").string()).ok());
  std::FILE* f = std::fopen((base / "private/file").c_str(), "w");
  std::fclose(f);
  EXPECT_FALSE(check_control_path((base / "private/file").string()).ok());  // not a socket
  fs::remove_all(base);
}

TEST(MuxPath, NoHolderAnswersOnAMissingPath) {
  EXPECT_FALSE(connect_control("/nonexistent/pdx-cm"));
}

}  // namespace
}  // namespace pdx
