#include "base/fd.h"

#include <fcntl.h>
#include <gtest/gtest.h>

namespace pdx {
namespace {

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

TEST(FdTest, ClosesWhenDropped) {
  int raw;
  {
    Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    raw = fd.get();
    ASSERT_TRUE(fd);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));
}

TEST(FdTest, MovesOwnership) {
  Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = a.get();
  Fd b(std::move(a));
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): a moved-from Fd is empty
  EXPECT_EQ(b.get(), raw);
  Fd c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  c = std::move(c);  // self-move keeps it
  EXPECT_TRUE(is_open(raw));
}

TEST(FdTest, ResetClosesTheOldOne) {
  Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int old = fd.get();
  fd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(is_open(old) && old != fd.get());
  int released = fd.release();
  EXPECT_FALSE(fd);
  EXPECT_TRUE(is_open(released));
  ::close(released);
}

}  // namespace
}  // namespace pdx
