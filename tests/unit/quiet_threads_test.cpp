#include "base/quiet_threads.h"

#include <gtest/gtest.h>

#include <thread>

namespace pdx {
namespace {

bool blocked(int signal) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, signal) == 1;
}

TEST(QuietThreads, ThreadsStartedMeanwhileBlockCtrlC) {
  ASSERT_FALSE(blocked(SIGINT));
  bool in_thread = false;
  {
    QuietThreads quiet;
    std::thread t([&] { in_thread = blocked(SIGINT) && blocked(SIGTERM) && blocked(SIGHUP); });
    t.join();
  }
  EXPECT_TRUE(in_thread);
  EXPECT_FALSE(blocked(SIGINT));
}

}  // namespace
}  // namespace pdx
