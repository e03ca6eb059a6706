#include "base/read_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>

#include "base/fd.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

TEST(ReadFileTest, ReadsARegularFileWhole) {
  test::TempDir dir;
  test::write_file(dir / "f", "line 1\nline 2\n");
  auto text = read_text_file(dir / "f");
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "line 1\nline 2\n");
}

TEST(ReadFileTest, AMissingFileIsAnErrorOrEmptyAsAsked) {
  test::TempDir dir;
  EXPECT_EQ(read_text_file(dir / "none").error(), "No such file or directory");
  auto text = read_text_file(dir / "none", IfMissing::empty);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "");
}

TEST(ReadFileTest, ADirectoryIsRefused) {
  test::TempDir dir;
  EXPECT_EQ(read_text_file(dir.path().string(), IfMissing::empty).error(), "is a directory");
}

TEST(ReadFileTest, DevicesAndFifosAreRefusedAtOnce) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(read_text_file("/dev/zero").error(), "not a regular file");
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_text_file(dir / "fifo").error(), "not a regular file");  // no writer: no wait
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(ReadFileTest, DevNullReadsEmptyAsOpenSshReadsIt) {
  auto text = read_text_file("/dev/null");
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "");
  Fd fd(::open("/dev/null", O_RDWR | O_CLOEXEC));  // blocking, as known_hosts opens to record
  auto read = read_text_fd(fd.get());
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(*read, "");
}

TEST(ReadFileTest, ATerminalWithNothingToReadIsRefusedWithoutWaiting) {
  Fd pty(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));  // blocking: a read would wait
  if (!pty) GTEST_SKIP() << "no pseudo-terminal here";
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(read_text_fd(pty.get()).error(), "not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(ReadFileTest, AFileOverTheCapIsRefused) {
  test::TempDir dir;
  test::write_file(dir / "big", std::string(5000, 'x'));
  EXPECT_EQ(read_text_file(dir / "big", IfMissing::error, 4999).error(), "over 4999 bytes");
  EXPECT_EQ(read_text_file(dir / "big", IfMissing::error, 5000)->size(), 5000u);
  EXPECT_EQ(kTextFileMax, 64u << 20);
}

TEST(ReadFileTest, AnUnreadableFileSaysWhy) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  test::TempDir dir;
  test::write_file(dir / "secret", "x");
  ::chmod((dir / "secret").c_str(), 0);
  EXPECT_EQ(read_text_file(dir / "secret").error(), "Permission denied");
}

}  // namespace
}  // namespace pdx
