#include "archive/unpack_writers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/unit/scratch.h"

namespace pdx {

namespace {

std::shared_ptr<UnpackDirectory> open_directory(const std::string& path) {
  std::filesystem::create_directories(path);
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  return std::make_shared<UnpackDirectory>(fd);
}

FileToWrite file_in(std::shared_ptr<UnpackDirectory> directory, const std::string& base) {
  FileToWrite file;
  file.directory = std::move(directory);
  file.base = base;
  file.temp_name = "." + base + ".pdx-1-" + base;
  file.origin = "archived/" + base;
  file.name = base;
  file.mode = 0640;
  file.mtime = timespec{1000000000, 5};
  return file;
}

std::vector<char> bytes(const std::string& text) {
  return {text.begin(), text.end()};
}

// What a directory holds that pdx's temporary names would show.
bool has_temp_names(const std::filesystem::path& dir) {
  for (const auto& name : test::list_dir(dir)) {
    if (name.find(".pdx-") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// Many files in a few directories, more than the queue holds at once: each is there, complete,
// with its mode and time.
TEST(UnpackWriters, WritesEveryFileWithItsModeAndTime) {
  test::TempDir dir;
  std::vector<std::shared_ptr<UnpackDirectory>> dirs = {
      open_directory(dir / "a"), open_directory(dir / "b"), open_directory(dir / "c")};
  FileCreation creation{hiding_in(dirs[0]->fd()), 022};
  {
    UnpackWriters writers(2, 8 << 10, creation);
    for (int i = 0; i < 300; ++i) {
      auto written = writers.write(file_in(dirs[i % 3], std::to_string(i)),
                                   bytes(std::string(i * 10, 'x') + std::to_string(i)));
      ASSERT_TRUE(written.ok()) << written.error();
    }
    auto done = writers.wait();
    ASSERT_TRUE(done.ok()) << done.error();
  }
  for (int i = 0; i < 300; ++i) {
    std::string path = dir / (std::string(1, "abc"[i % 3]) + "/" + std::to_string(i));
    ASSERT_EQ(test::read_file(path), std::string(i * 10, 'x') + std::to_string(i)) << path;
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
    EXPECT_EQ(st.st_mtim.tv_nsec, 5);
  }
}

// A whole file of zeros, a run of them inside one: holes, as when written as it is read.
TEST(UnpackWriters, ZerosStayHoles) {
  test::TempDir dir;
  auto directory = open_directory(dir / "d");
  UnpackWriters writers(1, 1 << 20, {hiding_in(directory->fd()), 022});
  std::vector<char> data(64 << 10);
  data.back() = 'z';
  ASSERT_TRUE(writers.write(file_in(directory, "sparse"), data).ok());
  ASSERT_TRUE(writers.wait().ok());
  EXPECT_EQ(test::read_file(dir / "d/sparse"), std::string(data.begin(), data.end()));
  struct stat st;
  ASSERT_EQ(::stat((dir / "d/sparse").c_str(), &st), 0);
  EXPECT_LE(st.st_blocks * 512, 8 << 10);
}

// The first failure is the Error of wait() and of every write() after it; with one thread, the
// files queued behind the failed one are dropped, leaving nothing.
TEST(UnpackWriters, TheFirstFailureStopsTheWriting) {
  test::TempDir dir;
  auto good = open_directory(dir / "good");
  auto bad = std::make_shared<UnpackDirectory>(
      ::open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC));  // no files can be made there
  UnpackWriters writers(1, 1 << 20, {hiding_in(good->fd()), 022});
  ASSERT_TRUE(writers.write(file_in(bad, "f"), bytes("data")).ok());
  for (int i = 0; i < 100; ++i) {
    if (!writers.write(file_in(good, std::to_string(i)), bytes("data")).ok()) break;
  }
  auto done = writers.wait();
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().rfind("archived/f: cannot create: ", 0), 0u) << done.error();
  auto again = writers.write(file_in(good, "late"), bytes("data"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), done.error());
  EXPECT_TRUE(test::list_dir(dir / "good").empty());
}

// Dropped with files still queued: the threads are joined, and each file is either complete
// under its name or not there at all.
TEST(UnpackWriters, DroppedWithFilesQueuedLeavesNothingHalfDone) {
  test::TempDir dir;
  auto directory = open_directory(dir / "d");
  std::string data(100 << 10, 'y');
  {
    UnpackWriters writers(2, 64 << 20, {hiding_in(directory->fd()), 022});
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(writers.write(file_in(directory, std::to_string(i)), bytes(data)).ok());
    }
  }
  EXPECT_FALSE(has_temp_names(dir / "d"));
  for (const auto& name : test::list_dir(dir / "d")) {
    EXPECT_EQ(test::read_file(dir / ("d/" + name)), data) << name;
  }
}

}  // namespace pdx
