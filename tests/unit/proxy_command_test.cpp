#include "transport/proxy_command.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(ProxyCommand, ExpandsSshTokens) {
  DialTarget t{"node01.cluster", 2222, "bob", "node01", "node01", {}};
  EXPECT_EQ(expand_proxy_command("ssh -W %h:%p -l %r gw # %n 100%%", t),
            "ssh -W node01.cluster:2222 -l bob gw # node01 100%");
  EXPECT_EQ(expand_proxy_command("nc %x %", t), "nc %x %");  // refused when the config is read
}

}  // namespace
}  // namespace pdx
