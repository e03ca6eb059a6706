#include "distribute/pull/unpack_process.h"

#include <gtest/gtest.h>

#include <csignal>

#include "scratch.h"

namespace pdx {
namespace {

// A stand-in for `pdx unpack`: sh -c SCRIPT sh --no-same-owner -C DIR -
std::vector<std::string> sh(const std::string& script) {
  return {"/bin/sh", "-c", script, "sh"};
}

TEST(UnpackProcess, FeedsTheChildAndWaits) {
  test::TempDir dir;
  auto child = UnpackProcess::start(sh("mkdir -p \"$3\" && cat > \"$3/got\""), dir / "out");
  ASSERT_TRUE(child) << child.error();
  ASSERT_TRUE(child->write("hello "));
  ASSERT_TRUE(child->write("world"));
  ASSERT_TRUE(child->finish());
  EXPECT_EQ(test::read_file(dir / "out/got"), "hello world");
}

TEST(UnpackProcess, FailureSaysTheChildsError) {
  test::TempDir dir;
  auto child = UnpackProcess::start(
      sh("echo 'pdx: warning: w' >&2; echo 'pdx: error: -: entry ../x: refused' >&2; exit 2"),
      dir / "out");
  ASSERT_TRUE(child);
  std::signal(SIGPIPE, SIG_IGN);  // as execute() does
  std::string big(1 << 20, 'x');  // more than a pipe holds: the child has gone by then
  bool wrote = true;
  for (int i = 0; i < 4 && wrote; ++i) wrote = child->write(big).ok();
  EXPECT_FALSE(wrote);
  auto done = child->finish();
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error(), "entry ../x: refused");
}

TEST(UnpackProcess, SilentFailureSaysTheStatus) {
  test::TempDir dir;
  auto child = UnpackProcess::start(sh("exit 4"), dir / "out");
  ASSERT_TRUE(child);
  auto done = child->finish();
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error(), "unpacking failed with exit 4");
}

TEST(UnpackProcess, MissingProgramIsAnError) {
  test::TempDir dir;
  EXPECT_FALSE(UnpackProcess::start({dir / "none"}, dir / "out"));
}

}  // namespace
}  // namespace pdx
