#include <gtest/gtest.h>

#include "core/output.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

TEST(JsonSink, OneObjectPerHostWithEverything) {
  test::TempFile out, err;
  auto sink = make_json_sink({"n1", "n2"}, {out.fd(), err.fd()});
  sink->output(1, Stream::out, "hi\n");
  sink->output(1, Stream::err, "e\"");
  HostResult ok;
  ok.exit_status = 3;
  sink->finished(1, ok);
  HostResult down;
  down.failure = Failure::connect;
  down.error = "connection refused";
  sink->finished(0, down);
  sink->close();
  EXPECT_EQ(out.read(),
            "{\"host\":\"n2\",\"rank\":1,\"exit_status\":3,\"signal\":null,\"stdout\":\"hi\\n\","
            "\"stderr\":\"e\\\"\",\"duration\":0.000,\"error\":null}\n"
            "{\"host\":\"n1\",\"rank\":0,\"exit_status\":255,\"signal\":null,\"stdout\":\"\","
            "\"stderr\":\"\",\"duration\":0.000,\"error\":\"connection refused\"}\n");
}

}  // namespace
}  // namespace pdx
