#include "distribute/agent_package.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "scratch.h"

namespace pdx {
namespace {

namespace fs = std::filesystem;

// Another pdx's copy in use (another build, or the old version still running) stays: removing it
// under that pdx failed its push ("cannot read this pdx binary"); one unused for a day goes.
TEST(AgentPackage, OtherBinariesCopiesGoOnlyOnceUnusedForADay) {
  test::TempDir dir;
  std::string cache = dir / "sent";
  test::write_file(dir / "agent", "an agent");
  test::write_file(cache + "/fresh.gz", "another pdx's, in use");
  test::write_file(cache + "/stale.gz", "another pdx's, unused");
  fs::last_write_time(cache + "/stale.gz",
                      fs::file_time_type::clock::now() - std::chrono::hours(25));
  auto copy = gzipped_copy(dir / "agent", "mine", cache);
  ASSERT_TRUE(copy);
  EXPECT_EQ(*copy, cache + "/mine.gz");
  EXPECT_TRUE(fs::exists(cache + "/fresh.gz"));
  EXPECT_FALSE(fs::exists(cache + "/stale.gz"));
}

// A developer's day of builds: beyond the 4 other copies used last, those unused for an hour go;
// one used within the hour stays, however many there are.
TEST(AgentPackage, AtMostFourOtherCopiesUnusedForAnHourStay) {
  test::TempDir dir;
  std::string cache = dir / "sent";
  test::write_file(dir / "agent", "an agent");
  auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 6; ++i) {  // build0 used 2 hours ago ... build5 7 hours ago
    std::string copy = cache + "/build" + std::to_string(i) + ".gz";
    test::write_file(copy, "another build's");
    fs::last_write_time(copy, now - std::chrono::hours(2 + i));
  }
  test::write_file(cache + "/recent.gz", "in use");
  fs::last_write_time(cache + "/recent.gz", now - std::chrono::minutes(50));
  ASSERT_TRUE(gzipped_copy(dir / "agent", "mine", cache));
  EXPECT_TRUE(fs::exists(cache + "/recent.gz"));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(fs::exists(cache + "/build" + std::to_string(i) + ".gz"), i < 3) << i;
  EXPECT_TRUE(fs::exists(cache + "/mine.gz"));
}

// A copy found again is marked used, so that other pdx binaries keep it.
TEST(AgentPackage, ACopyFoundAgainIsMarkedUsed) {
  test::TempDir dir;
  std::string cache = dir / "sent";
  test::write_file(dir / "agent", "an agent");
  ASSERT_TRUE(gzipped_copy(dir / "agent", "mine", cache));
  auto old = fs::file_time_type::clock::now() - std::chrono::hours(25);
  fs::last_write_time(cache + "/mine.gz", old);
  ASSERT_TRUE(gzipped_copy(dir / "agent", "mine", cache));
  EXPECT_GT(fs::last_write_time(cache + "/mine.gz"), old + std::chrono::hours(1));
}

}  // namespace
}  // namespace pdx
