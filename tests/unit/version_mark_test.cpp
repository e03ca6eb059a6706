#include "agent/version_mark.h"

#include <gtest/gtest.h>

#include <string>

namespace pdx {
namespace {

// "pdx agent of version VERSION of sources HASH" and its NUL: what pdx looks for in a binary.
TEST(VersionMark, SaysTheVersionAndTheAgentsSources) {
  std::string_view mark = agent_version_mark();
  ASSERT_FALSE(mark.empty());
  EXPECT_EQ(mark.back(), '\0');
  std::string prefix = "pdx agent of version " PDX_VERSION " of sources ";
  ASSERT_TRUE(mark.starts_with(prefix)) << mark;
  std::string_view hash = mark.substr(prefix.size(), mark.size() - prefix.size() - 1);
  EXPECT_EQ(hash.size(), 16u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string_view::npos) << hash;
}

}  // namespace
}  // namespace pdx
