#include "archive/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace pdx {

TEST(Progress, SilentOffATerminal) {
  if (::isatty(STDERR_FILENO)) GTEST_SKIP() << "stderr is a terminal";
  testing::internal::CaptureStderr();
  {
    Progress progress;
    progress.update(1, 10, std::nullopt);
    progress.update(5, 10, 3);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace pdx
