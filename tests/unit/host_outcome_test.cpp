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
  EXPECT_EQ(lost->error, "connection refused");
  HostResult killed;
  killed.signal = "KILL";
  EXPECT_EQ(unfinished(killed)->status, 137);
}

TEST(HostOutcome, ReportFoldsAndExitIsTheLargest) {
  std::vector<HostOutcome> outcomes = {
      {0, "pulled", "", {}}, {1, "x: gone", "x: gone", {}}, {0, "pulled", "", {}}};
  EXPECT_EQ(outcome_report({"h1", "h2", "h3"}, outcomes),
            "pdx: h[1,3]: pulled\npdx: h2: x: gone\n");
  EXPECT_EQ(outcome_exit_status(outcomes), 1);
  EXPECT_EQ(outcome_exit_status({}), 0);
}

TEST(HostOutcome, FoldedReportTakesSeveralLinesAHost) {
  FoldedReport report;
  report.add("h1", "denied (a)");
  report.add("h1", "denied (b)");
  report.add("h2", "denied (a)");
  report.add("h3", "");  // nothing to say
  EXPECT_EQ(report.str(), "pdx: h[1-2]: denied (a)\npdx: h1: denied (b)\n");
}

TEST(HostOutcome, JsonFieldsEscapeEveryString) {
  JsonFields f;
  f.number("n", -3).boolean("b", true).string("s", "a\"b\n\x1b").string_or_null("e", "");
  f.strings("names", {"x", "\xff"}).objects("list", {JsonFields().string("k", "v"), {}});
  EXPECT_EQ(f.object(),
            "{\"n\":-3,\"b\":true,\"s\":\"a\\\"b\\n\\u001b\",\"e\":null,"
            "\"names\":[\"x\",\"\xEF\xBF\xBD\"],\"list\":[{\"k\":\"v\"},{}]}");
  EXPECT_EQ(JsonFields().append(JsonFields()).object(), "{}");
  EXPECT_EQ(JsonFields().number("a", 1).append(JsonFields().number("b", 2)).object(),
            "{\"a\":1,\"b\":2}");
}

TEST(HostOutcome, JsonIsALinePerHost) {
  HostResult refused;
  refused.failure = Failure::connect;
  refused.error = "connection refused";
  std::vector<HostOutcome> outcomes = {{0, "pulled", "", {}}, *unfinished(refused)};
  outcomes[0].figures.number("bytes", 10);
  EXPECT_EQ(outcome_json({"h\"1", "h2"}, outcomes),
            "{\"host\":\"h\\\"1\",\"status\":0,\"bytes\":10,\"error\":null}\n"
            "{\"host\":\"h2\",\"status\":255,\"error\":\"connection refused\"}\n");
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

TEST(HostOutcome, AddOnceKeepsTheOrderAndDropsRepeats) {
  std::vector<std::string> list{"a"};
  add_once(list, {"b", "a", "c", "b"});
  EXPECT_EQ(list, (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace pdx
