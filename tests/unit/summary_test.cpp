#include "core/summary.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

HostResult exited(int status) {
  HostResult r;
  r.exit_status = status;
  return r;
}

HostResult failed(Failure f, std::string error) {
  HostResult r;
  r.failure = f;
  r.error = std::move(error);
  return r;
}

TEST(Summary, ExitStatusIsTheLargest) {
  EXPECT_EQ(run_exit_status({}), 0);
  EXPECT_EQ(run_exit_status({exited(0), exited(3), exited(1)}), 3);
  EXPECT_EQ(run_exit_status({exited(3), failed(Failure::connect, "refused")}), 255);
}

TEST(Summary, SignalCountsAs128PlusN) {
  HostResult r;
  r.signal = "KILL";
  EXPECT_EQ(exit_status_of(r), 137);
  EXPECT_EQ(describe(r), "killed by signal KILL");
}

TEST(Summary, FailuresFoldedByWhatHappened) {
  std::vector<std::string> labels = {"node01", "node02", "node03", "node04", "node05"};
  std::vector<HostResult> results = {
      exited(1), exited(0), exited(1),
      failed(Failure::connect_timeout, "connect timed out after 10s"), exited(1)};
  EXPECT_EQ(failure_summary(labels, results),
            "pdx: node[01,03,05]: exit 1\npdx: node04: connect timed out after 10s\n");
  EXPECT_EQ(failure_summary(labels, std::vector<HostResult>(5)), "");
}

TEST(Summary, FoldedLinesSkipEmptyWhats) {
  std::vector<std::string> labels = {"n1", "n2", "n3", "n4"};
  EXPECT_EQ(folded_lines(labels, {"match", "", "match", "differs"}),
            "pdx: n[1,3]: match\npdx: n4: differs\n");
  EXPECT_EQ(folded_lines(labels, {"", "", "", ""}), "");
}

}  // namespace
}  // namespace pdx
