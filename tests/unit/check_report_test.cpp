#include "preflight/check_report.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(CheckReport, AgreementNamesTheOddHostOut) {
  std::vector<std::string> labels = {"n1", "n2", "n3", "n4"};
  CheckResult torch =
      agreement("torch", {"2.3.1", "2.3.1", "2.1.0", "2.3.1"}, "(not installed)", labels);
  EXPECT_EQ(check_lines(labels, {torch}),
            "ok   torch 2.3.1: n[1-2,4]\n"
            "FAIL torch 2.1.0: n3 (n[1-2,4]: 2.3.1)\n");
  EXPECT_TRUE(any_failed({torch}));
}

TEST(CheckReport, AbsentEverywhereIsNotApplicableSomewhereFails) {
  std::vector<std::string> labels = {"n1", "n2"};
  CheckResult none =
      agreement("deepspeed", {std::nullopt, std::nullopt}, "(not installed)", labels);
  EXPECT_EQ(check_lines(labels, {none}), "n/a  deepspeed (not installed): n[1-2]\n");
  EXPECT_FALSE(any_failed({none}));
  CheckResult one = agreement("deepspeed", {"0.14.0", std::nullopt, "0.14.0"}, "(not installed)",
                              {"n1", "n2", "n3"});
  EXPECT_EQ(check_lines({"n1", "n2", "n3"}, {one}),
            "ok   deepspeed 0.14.0: n[1,3]\nFAIL deepspeed (not installed): n2 (n[1,3]: 0.14.0)\n");
}

TEST(CheckReport, HostsLeftOutAndJson) {
  std::vector<std::string> labels = {"n1", "n2"};
  CheckResult port{"master port 29500",
                   {Verdict{Outcome::fail, "taken", "(in \"use\")"}, std::nullopt}};
  EXPECT_EQ(check_lines(labels, {port}), "FAIL master port 29500 taken: n1 (in \"use\")\n");
  EXPECT_EQ(check_json(labels, {port}),
            "{\"check\":\"master port 29500\",\"host\":\"n1\",\"outcome\":\"fail\","
            "\"value\":\"taken\",\"note\":\"(in \\\"use\\\")\",\"detail\":null}\n");
  CheckResult skipped = agreement("os", {"a", "b"}, "(unknown)", labels, {true, false});
  EXPECT_EQ(check_lines(labels, {skipped}), "ok   os a: n1\n");
}

}  // namespace
}  // namespace pdx
