#include "cmd/relay_options.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace pdx {
namespace {

TEST(RelayOptionsTest, NoRelayChainAndTrees) {
  RelayOptions options;
  EXPECT_FALSE(relay_options(RelayFlags{}, options));
  EXPECT_TRUE(relay_options(RelayFlags{"chain", "", ""}, options));
  EXPECT_EQ(options.fanout, 1u);
  EXPECT_TRUE(relay_options(RelayFlags{"tree:16", "10.0.0.1", "7000-7010"}, options));
  EXPECT_EQ(options.fanout, 16u);
  EXPECT_EQ(options.bind, "10.0.0.1");
  EXPECT_EQ(options.low, 7000);
  EXPECT_EQ(options.high, 7010);
  EXPECT_TRUE(relay_options(RelayFlags{"chain", "", "9000"}, options));
  EXPECT_EQ(options.low, 9000);
  EXPECT_EQ(options.high, 9000);
  EXPECT_TRUE(relay_options(RelayFlags{"chain", "::1", ""}, options));
  EXPECT_EQ(options.bind, "::1");
}

TEST(RelayOptionsTest, BadValuesAreUsageErrors) {
  RelayOptions options;
  for (const char* shape : {"tree:1", "tree:17", "tree:", "star", "tree:x"})
    EXPECT_THROW(relay_options(RelayFlags{shape, "", ""}, options), UsageError) << shape;
  for (const char* ports : {"0", "65536", "9-1", "http", "1-", "-5", "1-2", "1023-2000"})
    EXPECT_THROW(relay_options(RelayFlags{"chain", "", ports}, options), UsageError) << ports;
  try {
    relay_options(RelayFlags{"chain", "", "9-1"}, options);
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--relay-ports: the range ends before it starts");
  }
  try {
    relay_options(RelayFlags{"chain", "", "1-2"}, options);
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "--relay-ports: port 1 is privileged (below 1024): the agents cannot listen "
                 "there; give ports in 1024-65535");
  }
  for (const char* bind : {"notanaddress", "host.example", "10.0.0", "10.0.0.1:80", " 10.0.0.1"})
    EXPECT_THROW(relay_options(RelayFlags{"chain", bind, ""}, options), UsageError) << bind;
}

}  // namespace
}  // namespace pdx
