#include "distribute/push/manifest_check.h"
#include "distribute/push/push_report.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

PushReport hosts_that_unpacked(std::vector<Summary> summaries) {
  PushReport r;
  for (auto& s : summaries) r.hosts.push_back(PushedHost{{}, {}, {}, s, false});
  return r;
}

TEST(ManifestCheck, MatchingHostsStayComplete) {
  PushReport r = hosts_that_unpacked({{3, 300, 0}, {3, 300, 0}});
  check_manifest(Manifest{"tar", 3, 300, {}}, r);
  EXPECT_EQ(r.hosts[0].error, "");
  EXPECT_EQ(r.hosts[1].error, "");
  EXPECT_EQ(push_exit_status(r), 0);
}

TEST(ManifestCheck, AHostThatDiffersFailsWithBothFigures) {
  PushReport r = hosts_that_unpacked({{3, 300, 0}, {2, 300, 0}, {3, 299, 0}});
  check_manifest(Manifest{"tar", 3, 300, {}}, r);
  EXPECT_EQ(r.hosts[0].error, "");
  EXPECT_EQ(r.hosts[1].error, "unpacked 2 files, 300 bytes; the manifest says 3 files, 300 bytes");
  EXPECT_EQ(r.hosts[2].error, "unpacked 3 files, 299 bytes; the manifest says 3 files, 300 bytes");
  EXPECT_EQ(push_exit_status(r), 1);
  PushText t = push_text({"n1", "n2", "n3"}, r);
  EXPECT_EQ(t.out, "pdx: n1: 300 B in 3 files\n");
}

TEST(ManifestCheck, SingularCounts) {
  PushReport r = hosts_that_unpacked({{1, 1, 0}});
  check_manifest(Manifest{"tar", 0, 0, {}}, r);
  EXPECT_EQ(r.hosts[0].error, "unpacked 1 file, 1 byte; the manifest says 0 files, 0 bytes");
}

TEST(ManifestCheck, HostsThatFailedAlreadyKeepTheirReason) {
  PushReport r = hosts_that_unpacked({{0, 0, 1}, {0, 0, 0}, {0, 0, 0}});
  r.hosts[0].failed.push_back({"/d", "archive stream: truncated"});
  r.hosts[1].error = "agent failed: exit 3";
  r.hosts[2].result.failure = Failure::connect;
  check_manifest(Manifest{"tar", 3, 300, {}}, r);
  EXPECT_EQ(r.hosts[0].error, "");
  EXPECT_EQ(r.hosts[1].error, "agent failed: exit 3");
  EXPECT_EQ(r.hosts[2].error, "");
}

}  // namespace
}  // namespace pdx
