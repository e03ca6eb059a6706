#include "base/umask.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

namespace pdx {
namespace {

TEST(UmaskTest, IsTheProcessMaskAndLeavesItInPlace) {
  mode_t mask = process_umask();
  mode_t now = ::umask(mask);  // reads the mask in force, and puts it back
  EXPECT_EQ(now, mask);
  EXPECT_EQ(process_umask(), mask);
}

}  // namespace
}  // namespace pdx
