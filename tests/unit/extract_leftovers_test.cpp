#include "agent/extract_leftovers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

std::string host() {
  char name[256] = "";
  ::gethostname(name, sizeof name - 1);
  return name;
}

// A PID that was a process a moment ago and is none now (reaped).
pid_t gone_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(ExtractLeftovers, OwnNameIsOfALiveOwner) {
  std::string name = hidden_name(7);
  EXPECT_TRUE(name.starts_with(".extract.pdx-" + host() + "-" + std::to_string(::getpid()) + "-"));
  EXPECT_TRUE(name.ends_with("-7"));
  ASSERT_TRUE(process_start(::getpid()).has_value());
  EXPECT_FALSE(owner_gone(name));
}

TEST(ExtractLeftovers, AGoneOrReusedPidIsGone) {
  std::string start = std::to_string(*process_start(::getpid()));
  std::string prefix = ".extract.pdx-" + host() + "-";
  EXPECT_TRUE(owner_gone(prefix + std::to_string(gone_pid()) + "-" + start + "-1"));
  // This process's PID with another start time: the PID was reused.
  EXPECT_TRUE(owner_gone(prefix + std::to_string(::getpid()) + "-1-1"));
}

TEST(ExtractLeftovers, OthersAreLeftAlone) {
  std::string dead = std::to_string(gone_pid());
  EXPECT_FALSE(owner_gone(".extract.pdx-another" + host() + "-" + dead + "-5-1"));  // other host
  EXPECT_FALSE(owner_gone(".extract.pdx-" + host() + "-" + dead + "-1"));           // older form
  EXPECT_FALSE(owner_gone(".extract.pdx-" + host() + "-" + dead + "-0-1"));         // start unknown
  EXPECT_FALSE(owner_gone(".extract.pdx-" + host() + "-x-5-1"));
  EXPECT_FALSE(owner_gone(".push.pdx-" + host() + "-" + dead + "-5-1"));
  EXPECT_FALSE(owner_gone("data"));
}

TEST(ExtractLeftovers, FoundInDest) {
  test::TempDir dir;
  std::string start = std::to_string(*process_start(::getpid()));
  std::string gone =
      ".extract.pdx-" + host() + "-" + std::to_string(gone_pid()) + "-" + start + "-1";
  std::filesystem::create_directories(dir / gone);
  std::filesystem::create_directories(dir / hidden_name(1));
  std::filesystem::create_directories(dir / "data");
  int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(leftovers_in(fd), std::vector<std::string>{gone});
  ::close(fd);
}

}  // namespace
}  // namespace pdx
