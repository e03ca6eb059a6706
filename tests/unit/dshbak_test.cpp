#include "core/dshbak.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

Dshbak read(std::initializer_list<std::string_view> lines) {
  Dshbak d;
  for (auto line : lines) d.add_line(line);
  return d;
}

TEST(Dshbak, GroupsByHostInOrderOfTheirNumbers) {
  auto d = read({"n10: a", "n2: b", "n2:c", " n1 : x", "no label here", ": nothing"});
  EXPECT_EQ(d.format(Coalesce::no),
            "----------------\nn1\n----------------\nx\n"
            "----------------\nn2\n----------------\nb\nc\n"
            "----------------\nn10\n----------------\na\n");
}

TEST(Dshbak, CoalesceFoldsHostsWithIdenticalLines) {
  auto d = read({"n1: a", "n2: b", "n3: a", "n4: a", "n3: z", "n4: z", "n1: z"});
  EXPECT_EQ(d.format(Coalesce::yes),
            "----------------\nn[1,3-4]\n----------------\na\nz\n"
            "----------------\nn2\n----------------\nb\n");
}

TEST(Dshbak, LabelsMayHoldColonsAsPdxWritesThem) {
  auto d = read({"127.0.0.1:2222: up: yes", "[::1]:22: up: yes"});
  EXPECT_EQ(d.format(Coalesce::yes),
            "----------------\n127.0.0.1:2222,[::1]:22\n----------------\nup: yes\n");
}

TEST(Dshbak, PerHostLinesInHeaderOrder) {
  Dshbak d;
  for (auto line : {"n10: a", "n2: b", "n2: c"}) d.add_line(line);
  auto hosts = d.per_host();
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].label, "n2");
  EXPECT_EQ(hosts[0].text, "b\nc\n");
  EXPECT_EQ(hosts[1].label, "n10");
  EXPECT_EQ(hosts[1].text, "a\n");
}

}  // namespace
}  // namespace pdx
