#include "hash/weak_sum.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace pdx {
namespace {

const unsigned char* bytes(const std::vector<unsigned char>& v) {
  return v.data();
}

TEST(WeakSumTest, IsRsyncsChecksumOne) {
  const unsigned char abc[] = {'a', 'b', 'c'};
  // s1 = 97 + 98 + 99; s2 = 97 + (97 + 98) + (97 + 98 + 99)
  EXPECT_EQ(weak_sums_bytewise(abc, 3), (WeakSums{294, 586}));
  EXPECT_EQ(weak_sums(abc, 3), (WeakSums{294, 586}));
  EXPECT_EQ(weak_sums(abc, 0), WeakSums{});
}

TEST(WeakSumTest, TheFastWayEqualsTheByteLoopAtEveryLengthAndAlignment) {
  std::vector<unsigned char> data(1000);
  std::mt19937 random(7);
  for (auto& b : data) b = static_cast<unsigned char>(random());
  for (std::size_t at = 0; at < 33; ++at) {
    for (std::size_t size = 0; at + size <= 400; ++size) {
      ASSERT_EQ(weak_sums(bytes(data) + at, size), weak_sums_bytewise(bytes(data) + at, size))
          << at << " " << size;
    }
  }
}

TEST(WeakSumTest, TheFastWayWrapsAsTheByteLoopOnTheLargestBlocksOfTheLargestBytes) {
  std::vector<unsigned char> data(128 * 1024 + 31, 0xff);  // s2 passes 2^32
  EXPECT_EQ(weak_sums(bytes(data), data.size()), weak_sums_bytewise(bytes(data), data.size()));
}

}  // namespace
}  // namespace pdx
