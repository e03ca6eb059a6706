#include "distribute/pull/pull_receiver.h"

#include <gtest/gtest.h>

#include "scratch.h"

namespace pdx {
namespace {

// GNU tar standing in for `pdx unpack`: sh -c SCRIPT sh --no-same-owner -C DIR -
const std::vector<std::string> kTarUnpack = {"/bin/sh", "-c",
                                             "mkdir -p \"$3\" && exec tar -xf - -C \"$3\"", "sh"};

TEST(PullReceiver, WhatTheUnpackerRefusesFailsTheHost) {
  test::TempDir dir;
  PullReceiver receiver(kTarUnpack, dir / "out");
  receiver.take("garbage\n");
  receiver.end();
  ASSERT_TRUE(receiver.failed());
  EXPECT_EQ(receiver.bytes(), 8u);
}

TEST(PullReceiver, NothingCameNothingMade) {
  test::TempDir dir;
  PullReceiver receiver(kTarUnpack, dir / "out");
  receiver.end();
  EXPECT_FALSE(receiver.failed());
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(PullReceiver, AShellsTextBeforeAnEmptyArchiveIsNamed) {
  test::TempDir dir;
  PullReceiver receiver(kTarUnpack, dir / "out");
  receiver.take("Welcome\n" + std::string(1024, '\0'));
  receiver.end();
  ASSERT_TRUE(receiver.failed());
  EXPECT_NE(receiver.failed()->message.find("Welcome"), std::string::npos);
}

TEST(PullReceiver, AnAbandonedStreamSaysNothingOfItself) {
  test::TempDir dir;
  PullReceiver receiver(kTarUnpack, dir / "out");
  std::string header(512, '\0');
  header.replace(257, 5, "ustar");
  receiver.take(header);  // cut short: unpack fails, and the break is what is said
  receiver.abandon();
  EXPECT_FALSE(receiver.failed());
}

}  // namespace
}  // namespace pdx
