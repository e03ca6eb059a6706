#include "core/held_output.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

std::string read_back(const HeldOutput& held) {
  std::string all;
  EXPECT_EQ(held.for_each([&](std::string_view piece) {
    EXPECT_LE(piece.size(), HeldOutput::kChunk);
    all.append(piece);
    return true;
  }),
            0);
  return all;
}

// $TMPDIR set to `value` while it lives.
class SetTmpdir {
 public:
  explicit SetTmpdir(const std::string& value) {
    const char* old = std::getenv("TMPDIR");
    if (old) old_ = old;
    had_ = old != nullptr;
    setenv("TMPDIR", value.c_str(), 1);
  }
  ~SetTmpdir() { had_ ? setenv("TMPDIR", old_.c_str(), 1) : unsetenv("TMPDIR"); }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(HeldOutput, SmallOutputsStayInMemoryAndNeedNoFile) {
  test::TempDir tmp;
  SetTmpdir set(tmp.path());
  SpillFile file(1 << 20);
  HeldOutput a(file), b(file);
  a.append("one ");
  b.append("other");
  a.append("two");
  EXPECT_EQ(read_back(a), "one two");
  EXPECT_EQ(read_back(b), "other");
  EXPECT_EQ(a.size(), 7u);
  EXPECT_EQ(a.back(), 'o');
  EXPECT_TRUE(test::list_dir(tmp.path()).empty());
}

// Beyond the budget (or kChunk for one output) bytes go to the file, which has no name; what
// comes back is the same bytes in order, interleaved appends of two outputs notwithstanding.
TEST(HeldOutput, BeyondTheBudgetBytesGoToAnUnnamedFile) {
  test::TempDir tmp;
  SetTmpdir set(tmp.path());
  SpillFile file(100);
  HeldOutput a(file), b(file);
  std::string expect_a, expect_b;
  for (int i = 0; i < 3000; ++i) {
    std::string piece = std::to_string(i) + std::string(i % 97, 'x') + "\n";
    a.append(piece);
    b.append("b" + piece);
    expect_a += piece;
    expect_b += "b" + piece;
  }
  EXPECT_EQ(read_back(a), expect_a);
  EXPECT_EQ(read_back(b), expect_b);
  EXPECT_TRUE(test::list_dir(tmp.path()).empty());
}

TEST(HeldOutput, ReleaseGivesTheMemoryBack) {
  SpillFile file(10);
  {
    HeldOutput a(file);
    a.append("0123456789");
    EXPECT_FALSE(file.take_memory(1));
  }
  EXPECT_TRUE(file.take_memory(10));
}

TEST(HeldOutput, AnUnusableTemporaryDirectoryIsAnError) {
  SetTmpdir set("/nonexistent/pdx");
  SpillFile file(0);
  HeldOutput a(file);
  EXPECT_EQ(a.append("x"), ENOENT);
  EXPECT_EQ(file.name(), "a temporary file in /nonexistent/pdx");
}

}  // namespace
}  // namespace pdx
