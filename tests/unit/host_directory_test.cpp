#include "distribute/pull/host_directory.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(HostDirectory, PlainLabelsStayAsTheyAre) {
  EXPECT_EQ(host_directory("node01"), "node01");
  EXPECT_EQ(host_directory("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(host_directory("root@gpu-1_a+b"), "root@gpu-1_a+b");
}

TEST(HostDirectory, OtherBytesArePercentEncoded) {
  EXPECT_EQ(host_directory("[::1]:2222"), "%5B%3A%3A1%5D%3A2222");
  EXPECT_EQ(host_directory("node1:22"), "node1%3A22");
  EXPECT_EQ(host_directory("a/b"), "a%2Fb");
  EXPECT_EQ(host_directory("50%"), "50%25");  // so that no two labels meet
  EXPECT_EQ(host_directory("\xff"), "%FF");
}

TEST(HostDirectory, NeverDotOrDotDot) {
  EXPECT_EQ(host_directory(".."), "%2E.");
  EXPECT_EQ(host_directory("."), "%2E");
  EXPECT_EQ(host_directory(".hidden"), "%2Ehidden");
}

}  // namespace
}  // namespace pdx
