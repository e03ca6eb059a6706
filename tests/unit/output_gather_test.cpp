#include <gtest/gtest.h>

#include "core/output.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

TEST(GatherSink, IdenticalOutputsFoldedInRankOrder) {
  test::TempFile out, err;
  auto sink = make_gather_sink({"n1", "n2", "n3", "n4"}, Colour::no, {out.fd(), err.fd()});
  sink->output(2, Stream::out, "other\n");
  sink->output(0, Stream::out, "same\n");
  sink->output(1, Stream::out, "sa");
  sink->output(1, Stream::out, "me\n");
  sink->output(3, Stream::err, "warn");
  for (std::size_t i = 0; i < 4; ++i) sink->finished(i, {});
  sink->close();
  std::string rule(15, '-');
  EXPECT_EQ(out.read(),
            rule + "\nn[1-2] (2)\n" + rule + "\nsame\n" + rule + "\nn3 (1)\n" + rule + "\nother\n");
  EXPECT_EQ(err.read(), rule + "\nn4 (1)\n" + rule + "\nwarn\n");
}

}  // namespace
}  // namespace pdx
