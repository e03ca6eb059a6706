#include "agent/patch.h"

#include <gtest/gtest.h>

#include "tests/unit/delta_memfd.h"

namespace pdx {
namespace {

struct Out {
  std::string bytes;
  Patcher::Write write() {
    return [this](std::string_view b) -> Result<void> {
      bytes.append(b);
      return {};
    };
  }
};

TEST(PatchTest, CopiesBlocksAndLiteralsInOrder) {
  std::string old_bytes = std::string(700, 'a') + std::string(700, 'b') + "cc";
  Fd old_file = test::memory_file(old_bytes);
  Out out;
  Patcher p(old_file.get(), old_bytes.size(), 700, out.write());
  ASSERT_TRUE(p.copy(1, 2).ok());  // the second block and the short last one
  ASSERT_TRUE(p.literal("xyz").ok());
  ASSERT_TRUE(p.copy(0, 1).ok());
  EXPECT_EQ(out.bytes, std::string(700, 'b') + "cc" + "xyz" + std::string(700, 'a'));
  EXPECT_EQ(p.size(), out.bytes.size());
  EXPECT_EQ(p.digest(), strong_hash(out.bytes.data(), out.bytes.size()));
}

TEST(PatchTest, CopiesPastTheOldFileAreErrors) {
  Fd old_file = test::memory_file(std::string(1400, 'a'));
  Out out;
  Patcher p(old_file.get(), 1400, 700, out.write());
  EXPECT_FALSE(p.copy(2, 1).ok());
  EXPECT_FALSE(p.copy(1, 2).ok());
  EXPECT_FALSE(p.copy(0, 0).ok());
  EXPECT_FALSE(p.copy(1, UINT64_MAX).ok());  // no overflow
  EXPECT_TRUE(out.bytes.empty());
}

TEST(PatchTest, AnOldFileShorterThanItsSignatureIsAnError) {
  Fd old_file = test::memory_file(std::string(800, 'a'));
  Out out;
  Patcher p(old_file.get(), 1400, 700, out.write());
  auto r = p.copy(1, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("changed"), std::string::npos);
}

TEST(PatchTest, AWriteErrorStopsThePatch) {
  Fd old_file = test::memory_file(std::string(700, 'a'));
  Patcher p(old_file.get(), 700, 700,
            [](std::string_view) -> Result<void> { return Error{"cannot write: disk full"}; });
  EXPECT_FALSE(p.literal("x").ok());
  EXPECT_FALSE(p.copy(0, 1).ok());
}

}  // namespace
}  // namespace pdx
