#include "archive/progress.h"

#include <gtest/gtest.h>

namespace pdx {

TEST(Progress, SilentOffATerminal) {
  testing::internal::CaptureStderr();  // stderr is a file now, whatever it was
  {
    Progress progress;
    progress.update(1, 10, std::nullopt);
    progress.update(5, 10, 3);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace pdx
