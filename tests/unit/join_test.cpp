#include "archive/join.h"

#include <gtest/gtest.h>

#include "tests/unit/archive_memory_sink.h"
#include "tests/unit/scratch.h"

namespace pdx {

TEST(JoinParts, CopiesPartsInOrderAndFinishes) {
  test::TempDir dir;
  test::write_file(dir / "p0", "hello ");
  test::write_file(dir / "p1", "world");
  test::MemorySink out;
  auto n = join_parts({dir / "p0", dir / "p1"}, out);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 11u);
  EXPECT_EQ(out.bytes, "hello world");
  EXPECT_TRUE(out.finished);
}

TEST(JoinParts, MissingPartLeavesTheSinkUnfinished) {
  test::TempDir dir;
  test::write_file(dir / "p0", "x");
  test::MemorySink out;
  auto n = join_parts({dir / "p0", dir / "p1"}, out);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().find(dir / "p1"), std::string::npos);
  EXPECT_FALSE(out.finished);
  EXPECT_TRUE(out.bytes.empty());
}

}  // namespace pdx
