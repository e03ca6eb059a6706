#include "transport/remote_command.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(ExportPrefix, QuotesEveryValue) {
  EXPECT_EQ(export_prefix({}), "");
  EXPECT_EQ(export_prefix({{"A", "1"}, {"B", "it's $(x)"}}), "export A=1 B='it'\\''s $(x)'; ");
}

TEST(RemoteCommand, ExportsGoInFrontOfTheCommandAsTyped) {
  ExecRequest request{"date +%s; echo %h", {{"PDX_RANK", "1"}, {"X", "a b"}}, {}, nullptr};
  EXPECT_EQ(remote_command(request), "export PDX_RANK=1 X='a b'; date +%s; echo %h");
  EXPECT_EQ(remote_command({"true", {}, {}, nullptr}), "true");
}

TEST(RemoteCommand, ATimeoutKillsOnTheHostItself) {
  ExecRequest request{
      "sleep 100; echo 'done'", {{"PDX_RANK", "0"}}, std::chrono::milliseconds(1500), nullptr};
  EXPECT_EQ(remote_command(request),
            "export PDX_RANK=0; "
            "if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL 3.5 "
            "\"${SHELL:-/bin/sh}\" -c 'sleep 100; echo '\\''done'\\'''; fi\n"
            "sleep 100; echo 'done'");
}

}  // namespace
}  // namespace pdx
