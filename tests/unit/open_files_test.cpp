#include "base/open_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

namespace pdx {
namespace {

TEST(OpenFilesTest, CountsWhatIsOpen) {
  std::size_t before = open_file_count();
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(open_file_count(), before + 1);
  ::close(fd);
  EXPECT_EQ(open_file_count(), before);
}

TEST(OpenFilesTest, TheSoftLimitIsRaisedToTheHardOne) {
  raise_open_file_limit();
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(limit.rlim_cur, limit.rlim_max);
  if (limit.rlim_cur != RLIM_INFINITY) {
    EXPECT_EQ(open_file_limit(), limit.rlim_cur);
  }
  EXPECT_GT(open_file_limit(), open_file_count());
}

}  // namespace
}  // namespace pdx
