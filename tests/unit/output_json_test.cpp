#include <gtest/gtest.h>

#include <fcntl.h>

#include "base/fd.h"
#include "core/json.h"
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

// Several MiB, more than is held in memory, in pieces that split UTF-8 sequences: the object
// carries the same string json_string() makes of the whole.
TEST(JsonSink, LongOutputInPiecesIsEscapedAsAWhole) {
  test::TempFile out, err;
  auto sink = make_json_sink({"n1"}, {out.fd(), err.fd()});
  std::string text;
  while (text.size() < (6 << 20)) text += "caf\xc3\xa9 \"\xe2\x9c\x93\"\t\xff\n";
  for (std::size_t at = 0; at < text.size(); at += 4099)
    sink->output(0, Stream::out, std::string_view(text).substr(at, 4099));
  sink->finished(0, {});
  std::string line = out.read();
  std::string key = "\"stdout\":";
  auto start = line.find(key) + key.size();
  EXPECT_EQ(line.substr(start, line.find(",\"stderr\":") - start), json_string(text));
}

TEST(JsonSink, AFullDiskIsTheError) {
  Fd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  auto sink = make_json_sink({"n1"}, {full.get(), 2});
  sink->output(0, Stream::out, "hi\n");
  sink->finished(0, {});
  ASSERT_TRUE(sink->error());
  EXPECT_EQ(sink->error()->message(), "cannot write to standard output: No space left on device");
}

}  // namespace
}  // namespace pdx
