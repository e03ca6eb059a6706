#include <gtest/gtest.h>

#include "core/pdsh.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::TempFile;

TEST(PdshSink, WritesTheFailureLineAfterTheHostsLastLine) {
  TempFile out, err;
  auto sink =
      make_pdsh_sink({"n1", "n2"}, Prefix::yes, {"vm", "ssh"}, PdshRcmd::ssh, {out.fd(), err.fd()});
  sink->output(0, Stream::err, "oops\n");
  HostResult failed;
  failed.exit_status = 2;
  sink->finished(0, failed);
  sink->output(1, Stream::out, "fine\n");
  sink->finished(1, {});
  sink->close();
  EXPECT_EQ(out.read(), "n2: fine\n");
  EXPECT_EQ(err.read(), "n1: oops\npdsh@vm: n1: ssh exited with exit code 2\n");
}

TEST(PdshSink, PrintsAnUnfinishedLastLineAsTheHostSentIt) {
  TempFile out, err;
  auto sink =
      make_pdsh_sink({"n1", "n2"}, Prefix::yes, {"vm", "sh"}, PdshRcmd::exec, {out.fd(), err.fd()});
  sink->output(0, Stream::out, "a");
  sink->output(1, Stream::out, "x\ny");
  sink->output(0, Stream::out, "b\nc");
  sink->finished(0, {});
  sink->finished(1, {});
  sink->close();
  EXPECT_EQ(out.read(), "n2: x\nn1: ab\nn1: cn2: y");
}

TEST(PdshSink, NoLabelsWithMinusN) {
  TempFile out, err;
  auto sink =
      make_pdsh_sink({"n1"}, Prefix::no, {"vm", "sh"}, PdshRcmd::exec, {out.fd(), err.fd()});
  sink->output(0, Stream::out, "abc");
  sink->finished(0, {});
  sink->close();
  EXPECT_EQ(out.read(), "abc");
}

}  // namespace
}  // namespace pdx
