#include "distribute/host_outcome.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(HostOutcome, UnfinishedIsWhatCommandsReport) {
  HostResult exited;
  exited.exit_status = 2;
  EXPECT_FALSE(unfinished(exited));
  HostResult refused;
  refused.failure = Failure::connect;
  refused.error = "connection refused";
  auto lost = unfinished(refused);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->status, 255);
  EXPECT_EQ(lost->what, "connection refused");
  HostResult killed;
  killed.signal = "KILL";
  EXPECT_EQ(unfinished(killed)->status, 137);
}

TEST(HostOutcome, ReportFoldsAndExitIsTheLargest) {
  std::vector<HostOutcome> outcomes = {{0, "pulled"}, {1, "x: gone"}, {0, "pulled"}};
  EXPECT_EQ(outcome_report({"h1", "h2", "h3"}, outcomes),
            "pdx: h[1,3]: pulled\npdx: h2: x: gone\n");
  EXPECT_EQ(outcome_exit_status(outcomes), 1);
  EXPECT_EQ(outcome_exit_status({}), 0);
}

TEST(HostOutcome, PrintableEscapesControlBytes) {
  EXPECT_EQ(printable("a b'c"), "a b'c");
  EXPECT_EQ(printable("a\nb\t\\\x1b[31m"), "a\\nb\\t\\\\\\x1b[31m");
}

TEST(HostOutcome, StderrFirstLineKeepsTheFirstComplaint) {
  StderrFirstLine s;
  EXPECT_EQ(s.text(), "");
  s.add("\ntar: a: Cannot");
  s.add(" stat\ntar: Exiting with failure status\n");
  EXPECT_EQ(s.text(), "tar: a: Cannot stat (and 1 more line)");
  s.add("x\ny\n");
  EXPECT_EQ(s.text(), "tar: a: Cannot stat (and 3 more lines)");
}

TEST(HostOutcome, StderrFirstLineIsBounded) {
  StderrFirstLine s;
  s.add(std::string(100000, 'x'));
  EXPECT_LE(s.text().size(), 400u);
}

}  // namespace
}  // namespace pdx
