#include "distribute/sync.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

SyncReport report_of(std::size_t hosts) {
  SyncReport r;
  r.hosts.resize(hosts);
  r.whole.hosts.resize(hosts);
  return r;
}

TEST(SyncTest, TheReportFoldsHostsWithEqualOutcomes) {
  SyncReport r = report_of(3);
  for (auto& h : r.hosts) {
    h.patched = Summary{1, 20 * 1024 * 1024, 0};
    h.delta_bytes = 3000;
  }
  r.whole.hosts[2].written = Summary{2, 10, 0};
  r.hosts[1].failed.push_back({"d/x", "No space left on device"});
  PushText text = sync_text({"h1", "h2", "h3"}, r);
  EXPECT_EQ(text.out,
            "pdx: h1: 1 file patched (20.0 MiB, 2.9 KiB sent)\n"
            "pdx: h3: 1 file patched (20.0 MiB, 2.9 KiB sent), 2 files sent whole (10 B)\n");
  EXPECT_EQ(text.err, "pdx: h2: No space left on device (d/x)\n");
  EXPECT_EQ(sync_exit_status(r), 1);
}

TEST(SyncTest, UpToDateAndDryRun) {
  SyncReport r = report_of(2);
  EXPECT_EQ(sync_text({"h1", "h2"}, r).out, "pdx: h[1-2]: up to date\n");
  EXPECT_EQ(sync_exit_status(r), 0);
  r.dry_run = true;
  r.hosts[0].to_patch = {"big"};
  r.hosts[0].to_send = {""};
  EXPECT_EQ(sync_text({"h1", "h2"}, r).out,
            "pdx: h1: would patch big\npdx: h1: would send DEST\npdx: h2: up to date\n");
}

TEST(SyncTest, AnUnreachableHostIsSaidOnceAndExits255) {
  SyncReport r = report_of(2);
  r.hosts[1].result.failure = Failure::connect;
  r.hosts[1].result.error = "connect to port 22: Connection refused";
  r.whole.hosts[1].result = r.hosts[1].result;
  PushText text = sync_text({"h1", "h2"}, r);
  EXPECT_EQ(text.out, "pdx: h1: up to date\n");
  EXPECT_EQ(text.err, "pdx: h2: connect to port 22: Connection refused\n");
  EXPECT_EQ(sync_exit_status(r), 255);
}

}  // namespace
}  // namespace pdx
