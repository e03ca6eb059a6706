#include "distribute/sync/sync.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

SyncReport report_of(std::size_t hosts) {
  SyncReport r;
  r.hosts.resize(hosts);
  return r;
}

TEST(SyncTest, TheReportFoldsHostsWithEqualOutcomes) {
  SyncReport r = report_of(3);
  for (auto& h : r.hosts) {
    h.patched = Summary{1, 20 * 1024 * 1024, 0};
    h.delta_bytes = 3000;
  }
  r.hosts[2].written = Summary{2, 10, 0};
  r.hosts[2].deleted = 3;
  r.hosts[1].failed.push_back({"d/x", "No space left on device"});
  PushText text = sync_text({"h1", "h2", "h3"}, r);
  EXPECT_EQ(
      text.out,
      "pdx: h1: 1 file patched (20.0 MiB, 2.9 KiB sent)\n"
      "pdx: h3: 1 file patched (20.0 MiB, 2.9 KiB sent), 2 files sent whole (10 B), 3 deleted\n");
  EXPECT_EQ(text.err, "pdx: h2: No space left on device (d/x)\n");
  EXPECT_EQ(sync_exit_status(r), 1);
}

TEST(SyncTest, UpToDateAndDryRun) {
  SyncReport r = report_of(2);
  EXPECT_EQ(sync_text({"h1", "h2"}, r).out, "pdx: h[1-2]: up to date\n");
  EXPECT_EQ(sync_exit_status(r), 0);
  r.local.push_back("src/a: changed while being sent");  // not up to date: not sent
  EXPECT_EQ(sync_text({"h1", "h2"}, r).out, "pdx: h[1-2]: nothing sent\n");
  EXPECT_EQ(sync_exit_status(r), 1);
  r.local.clear();
  r.dry_run = true;
  r.hosts[0].to_patch = {"big"};
  r.hosts[0].to_send = {""};
  r.hosts[1].to_delete = {"old/", "old/x"};
  EXPECT_EQ(sync_text({"h1", "h2"}, r).out,
            "pdx: h1: would patch big\npdx: h1: would send DEST\n"
            "pdx: h2: would delete old/\npdx: h2: would delete old/x\n");
}

TEST(SyncTest, DeletionsAloneAndSkippedSources) {
  SyncReport r = report_of(2);
  r.hosts[0].deleted = 1;
  r.hosts[1].deleted = 1;
  r.warnings = "pdx: warning: src/fifo: not a file, directory or symlink, not sent\n";
  PushText text = sync_text({"h1", "h2"}, r);
  EXPECT_EQ(text.out, "pdx: h[1-2]: 1 deleted\n");
  EXPECT_EQ(text.err, "pdx: warning: src/fifo: not a file, directory or symlink, not sent\n");
  EXPECT_EQ(sync_exit_status(r), 0);
}

// The dead host is reported failed on its own line; the host that bridged around it, and the
// relays called off, are warnings after the failures; what a failed host said of its links is not.
TEST(SyncTest, ABridgedHostAndACalledOffRelayAreWarnings) {
  SyncReport r = report_of(3);
  r.hosts[1].error = "malformed reply from the agent: cut short";
  r.hosts[0].forwarded = "h2 broke off (reset): bridged around it to 127.0.0.1:4000 from offset 7";
  r.hosts[1].forwarded = "h3 broke off (reset)";  // said by a host that failed: not a warning
  r.called_off = "h[4-5]: the relay could not link up (h4: refused); sending from here";
  PushText text = sync_text({"h1", "h2", "h3"}, r);
  EXPECT_EQ(text.out, "pdx: h[1,3]: up to date\n");
  EXPECT_EQ(text.err,
            "pdx: h2: malformed reply from the agent: cut short\n"
            "pdx: warning: h[4-5]: the relay could not link up (h4: refused); sending from here\n"
            "pdx: warning: h1: h2 broke off (reset): bridged around it to 127.0.0.1:4000 from "
            "offset 7\n");
}

TEST(SyncTest, AFailedDeletionFailsTheHost) {
  SyncReport r = report_of(1);
  r.hosts[0].deleted = 2;
  r.hosts[0].failed.push_back({"d/sub", "Directory not empty"});
  PushText text = sync_text({"h1"}, r);
  EXPECT_EQ(text.out, "");
  EXPECT_EQ(text.err, "pdx: h1: Directory not empty (d/sub)\n");
  EXPECT_EQ(sync_exit_status(r), 1);
}

TEST(SyncTest, AnUnreachableHostIsSaidOnceAndExits255) {
  SyncReport r = report_of(2);
  r.hosts[1].result.failure = Failure::connect;
  r.hosts[1].result.error = "connect to port 22: Connection refused";
  PushText text = sync_text({"h1", "h2"}, r);
  EXPECT_EQ(text.out, "pdx: h1: up to date\n");
  EXPECT_EQ(text.err, "pdx: h2: connect to port 22: Connection refused\n");
  EXPECT_EQ(sync_exit_status(r), 255);
}

}  // namespace
}  // namespace pdx
