#include <gtest/gtest.h>

#include "core/pdsh.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::TempFile;

TEST(PdshSink, WritesTheFailureLineAfterTheHostsLastLine) {
  TempFile out, err;
  auto inner = make_prefix_sink({"n1", "n2"}, Prefix::yes, Colour::no, {out.fd(), err.fd()});
  auto sink =
      make_pdsh_sink(std::move(inner), {"n1", "n2"}, {"vm", "ssh"}, PdshRcmd::ssh, err.fd());
  sink->output(0, Stream::err, "oops");
  HostResult failed;
  failed.exit_status = 2;
  sink->finished(0, failed);
  sink->output(1, Stream::out, "fine\n");
  sink->finished(1, {});
  sink->close();
  EXPECT_EQ(out.read(), "n2: fine\n");
  EXPECT_EQ(err.read(), "n1: oops\npdsh@vm: n1: ssh exited with exit code 2\n");
}

}  // namespace
}  // namespace pdx
