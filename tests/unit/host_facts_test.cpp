#include "preflight/host_facts.h"

#include <gtest/gtest.h>

#include <string>

namespace pdx {
namespace {

TEST(HostFacts, KeepsGoodKeysFirstValueWins) {
  HostFacts f = HostFacts::parse(
      "clock=123\nos=Debian GNU/Linux 12\nos=other\nno equals\n"
      "Bad-Key=x\n=empty\ntorch.cuda=-\nifvar.NCCL_SOCKET_IFNAME=lo\n");
  EXPECT_EQ(f.value_or("clock", ""), "123");
  EXPECT_EQ(f.value_or("os", ""), "Debian GNU/Linux 12");
  EXPECT_EQ(f.value_or("torch.cuda", ""), "-");
  EXPECT_EQ(f.value_or("ifvar.NCCL_SOCKET_IFNAME", ""), "lo");
  EXPECT_FALSE(f.has("Bad-Key"));
  EXPECT_FALSE(f.get("missing"));
  EXPECT_EQ(f.size(), 4u);
}

TEST(HostFacts, BoundedAndControlBytesReplaced) {
  std::string out = "v=" + std::string(1000, 'a') + "\nc=\x1b[31mred\r\n";
  out += std::string(HostFacts::kMaxKey + 1, 'k') + "=long key\n";
  for (int i = 0; i < 1000; ++i) out += "k" + std::to_string(i) + "=x\n";
  HostFacts f = HostFacts::parse(out);
  EXPECT_EQ(f.value_or("v", "").size(), HostFacts::kMaxValue);
  EXPECT_EQ(f.value_or("c", ""), "?[31mred");
  EXPECT_EQ(f.size(), HostFacts::kMaxFacts);
}

}  // namespace
}  // namespace pdx
