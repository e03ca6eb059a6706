#include "archive/unpack_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/umask.h"
#include "tests/unit/scratch.h"

namespace pdx {

namespace {

// A scratch directory held open, as unpack holds the directories it writes into.
class OpenDir {
 public:
  OpenDir() : fd_(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~OpenDir() { ::close(fd_); }
  OpenDir(const OpenDir&) = delete;
  OpenDir& operator=(const OpenDir&) = delete;
  int fd() const { return fd_; }
  const test::TempDir& dir() const { return dir_; }
  std::vector<std::string> names() const { return test::list_dir(dir_.path()); }

 private:
  test::TempDir dir_;
  int fd_;
};

UnpackFile create(const OpenDir& d, const std::string& name, Hiding hiding,
                  const std::string& data) {
  auto file = UnpackFile::create(d.fd(), name, "." + name + ".pdx-1-1", 0640, hiding);
  EXPECT_TRUE(file.ok()) << file.error();
  EXPECT_EQ(::write(file->fd(), data.data(), data.size()), static_cast<ssize_t>(data.size()));
  return std::move(*file);  // throws, failing the test, if there is none
}

}  // namespace

// Both ways of hiding, as far as this machine's kernel and filesystem offer them.
class UnpackFileTest : public ::testing::TestWithParam<Hiding> {
 protected:
  void SetUp() override {
    if (GetParam() == Hiding::unnamed && hiding_in(dir_.fd()) != Hiding::unnamed) {
      GTEST_SKIP() << "no O_TMPFILE, or linkat(AT_EMPTY_PATH) not allowed here";
    }
  }
  // What a file being written looks like in the directory.
  std::vector<std::string> while_written() const {
    if (GetParam() == Hiding::unnamed) return {};
    return {".f.pdx-1-1"};
  }
  OpenDir dir_;
};

TEST_P(UnpackFileTest, AppearsUnderItsNameOnlyWhenCommitted) {
  auto file = create(dir_, "f", GetParam(), "data");
  EXPECT_EQ(dir_.names(), while_written());
  ASSERT_TRUE(file.commit().ok());
  EXPECT_EQ(dir_.names(), std::vector<std::string>{"f"});
  EXPECT_EQ(test::read_file(dir_.dir() / "f"), "data");
  struct stat st;
  ASSERT_EQ(::stat((dir_.dir() / "f").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640 & ~process_umask());
}

TEST_P(UnpackFileTest, LeavesNothingWhenDropped) {
  { auto file = create(dir_, "f", GetParam(), "data"); }
  EXPECT_TRUE(dir_.names().empty());
}

TEST_P(UnpackFileTest, ReplacesAFileOrASymlinkWithoutFollowingIt) {
  test::write_file(dir_.dir() / "f", "old");
  test::write_file(dir_.dir() / "target", "target");
  std::filesystem::create_symlink("target", dir_.dir() / "link");
  ASSERT_TRUE(create(dir_, "f", GetParam(), "new").commit().ok());
  ASSERT_TRUE(create(dir_, "link", GetParam(), "new").commit().ok());
  EXPECT_EQ(dir_.names(), (std::vector<std::string>{"f", "link", "target"}));
  EXPECT_EQ(test::read_file(dir_.dir() / "f"), "new");
  EXPECT_FALSE(std::filesystem::is_symlink(dir_.dir() / "link"));
  EXPECT_EQ(test::read_file(dir_.dir() / "link"), "new");
  EXPECT_EQ(test::read_file(dir_.dir() / "target"), "target");
}

TEST_P(UnpackFileTest, ADirectoryInTheWayIsAnErrorAndNothingIsLeft) {
  std::filesystem::create_directory(dir_.dir() / "d");
  auto file = create(dir_, "d", GetParam(), "data");
  auto committed = file.commit();
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(committed.error().rfind("cannot put in place: ", 0), 0u) << committed.error();
  EXPECT_EQ(dir_.names(), std::vector<std::string>{"d"});
  EXPECT_TRUE(test::list_dir(dir_.dir() / "d").empty());
}

// Data blocks at growing offsets: what is written reads back, and whole aligned 4 KiB chunks of
// zeros, gaps and the end past the last block stay holes.
TEST_P(UnpackFileTest, WritesBlocksAndLeavesZerosAsHoles) {
  auto file = UnpackFile::create(dir_.fd(), "f", ".f.pdx-1-1", 0644, GetParam());
  ASSERT_TRUE(file.ok()) << file.error();
  std::string head(4096, 'a');
  std::string zeros_then_b = std::string(3 * 4096 + 10, '\0') + "b";  // a gap before it too
  ASSERT_TRUE(file->write(head, 0).ok());
  ASSERT_TRUE(file->write(zeros_then_b, 2 * 4096).ok());
  ASSERT_TRUE(file->extend_to(64 * 4096).ok());
  ASSERT_TRUE(file->commit().ok());
  std::string expected = head + std::string(4096, '\0') + zeros_then_b;
  expected.resize(64 * 4096);
  EXPECT_EQ(test::read_file(dir_.dir() / "f"), expected);
  struct stat st;
  ASSERT_EQ(::stat((dir_.dir() / "f").c_str(), &st), 0);
  EXPECT_LE(st.st_blocks * 512, 2 * 4096 + 8192) << "holes written as data";  // a block's slack
}

INSTANTIATE_TEST_SUITE_P(Hidings, UnpackFileTest,
                         ::testing::Values(Hiding::unnamed, Hiding::temp_name),
                         [](const auto& param_info) {
                           return param_info.param == Hiding::unnamed ? "unnamed" : "temp_name";
                         });

// procfs has no O_TMPFILE, and no room for files either.
TEST(UnpackFile, CreateFailsWhereNoFileCanBe) {
  int bad = ::open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  auto file = UnpackFile::create(bad, "f", ".f.pdx-1-1", 0644, Hiding::unnamed);
  ::close(bad);
  EXPECT_FALSE(file.ok());
}

}  // namespace pdx
