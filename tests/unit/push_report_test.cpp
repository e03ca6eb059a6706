#include "distribute/push/push_report.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

const std::vector<std::string> kLabels = {"n1", "n2", "n3", "n4"};

PushReport four_hosts() {
  PushReport r;
  r.hosts.resize(4);
  for (auto& h : r.hosts) h.written = Summary{3, 3 * 1024 * 1024, 0};
  return r;
}

TEST(PushReport, CompleteHostsFold) {
  PushReport r = four_hosts();
  r.hosts[3].up_to_date = true;
  PushText t = push_text(kLabels, r);
  EXPECT_EQ(t.out, "pdx: n[1-3]: 3.0 MiB in 3 files\npdx: n4: up to date\n");
  EXPECT_EQ(t.err, "");
  EXPECT_EQ(push_exit_status(r), 0);
}

TEST(PushReport, FailuresNameHostReasonAndPath) {
  PushReport r = four_hosts();
  r.hosts[1].failed.push_back({"/d/x", "Permission denied"});
  r.hosts[2].failed.push_back({"/d/x", "Permission denied"});
  PushText t = push_text(kLabels, r);
  EXPECT_EQ(t.out, "pdx: n[1,4]: 3.0 MiB in 3 files\n");
  EXPECT_EQ(t.err, "pdx: n[2-3]: Permission denied (/d/x)\n");
  EXPECT_EQ(push_exit_status(r), 1);
}

TEST(PushReport, UnreachableIs255) {
  PushReport r = four_hosts();
  r.hosts[0].result.failure = Failure::connect;
  r.hosts[0].result.error = "connect to port 22: Connection refused";
  r.hosts[1].error = "malformed reply from the agent: bad frame type 63";
  PushText t = push_text(kLabels, r);
  EXPECT_EQ(t.err,
            "pdx: n1: connect to port 22: Connection refused\n"
            "pdx: n2: malformed reply from the agent: bad frame type 63\n");
  EXPECT_EQ(push_exit_status(r), 255);
}

TEST(PushReport, LocalErrorsFailTheRun) {
  PushReport r = four_hosts();
  r.local.push_back("src/a: changed while read (shorter)");
  EXPECT_EQ(push_text(kLabels, r).err, "pdx: error: src/a: changed while read (shorter)\n");
  EXPECT_EQ(push_exit_status(r), 1);
}

TEST(PushReport, JsonHasAHostPerLine) {
  PushReport r = four_hosts();
  r.hosts[1].failed.push_back({"/d/\"x\n", "Permission denied"});
  r.hosts[2].up_to_date = true;
  r.hosts[2].written = {};
  r.hosts[3].result.failure = Failure::connect;
  r.hosts[3].result.error = "connection refused";
  r.local.push_back("src/a: changed while read (shorter)");
  PushText t = push_json(kLabels, r);
  EXPECT_EQ(
      t.out,
      "{\"host\":\"n1\",\"status\":0,\"files\":3,\"bytes\":3145728,\"up_to_date\":false,"
      "\"failed\":[],\"error\":null}\n"
      "{\"host\":\"n2\",\"status\":1,\"files\":3,\"bytes\":3145728,\"up_to_date\":false,"
      "\"failed\":[{\"path\":\"/d/\\\"x\\n\",\"reason\":\"Permission denied\"}],\"error\":null}\n"
      "{\"host\":\"n3\",\"status\":0,\"files\":0,\"bytes\":0,\"up_to_date\":true,"
      "\"failed\":[],\"error\":null}\n"
      "{\"host\":\"n4\",\"status\":255,\"files\":3,\"bytes\":3145728,\"up_to_date\":false,"
      "\"failed\":[],\"error\":\"connection refused\"}\n");
  EXPECT_EQ(t.err, "pdx: error: src/a: changed while read (shorter)\n");
}

}  // namespace
}  // namespace pdx
