#include <gtest/gtest.h>

#include <fcntl.h>

#include "base/fd.h"
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

// More than is held in memory: each distinct output still printed once, whole, in rank order,
// whichever host of a group finished first.
TEST(GatherSink, LargeOutputsFoldedAndPrintedWhole) {
  test::TempFile out, err;
  auto sink = make_gather_sink({"n1", "n2", "n3", "n4"}, Colour::no, {out.fd(), err.fd()});
  std::string big(3 << 20, 'a'), other = big;
  other[other.size() / 2] = 'b';
  for (std::size_t at = 0; at < big.size(); at += 65536)
    for (std::size_t host : {0, 1, 2, 3})
      sink->output(host, Stream::out, std::string_view(host == 2 ? other : big).substr(at, 65536));
  for (std::size_t host : {3, 2, 1, 0}) sink->finished(host, {});
  sink->close();
  std::string rule(15, '-');
  EXPECT_EQ(out.read(), rule + "\nn[1-2,4] (3)\n" + rule + "\n" + big + "\n" + rule + "\nn3 (1)\n" +
                            rule + "\n" + other + "\n");
}

TEST(GatherSink, AFullDiskIsTheError) {
  Fd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  auto sink = make_gather_sink({"n1"}, Colour::no, {full.get(), 2});
  sink->output(0, Stream::out, "hi\n");
  sink->finished(0, {});
  sink->close();
  ASSERT_TRUE(sink->error());
  EXPECT_EQ(sink->error()->message(), "cannot write to standard output: No space left on device");
}

}  // namespace
}  // namespace pdx
