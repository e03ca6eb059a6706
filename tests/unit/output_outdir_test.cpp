#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "core/output.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

TEST(OutdirSink, FilePerHostAndStreamEvenWhenEmpty) {
  test::TempDir scratch;
  auto dir = scratch.path() / "logs";
  auto sink = make_outdir_sink({"n1", "n2"}, dir.string());
  sink->output(0, Stream::out, "a\nb");
  sink->output(0, Stream::err, "err");
  sink->finished(0, {});
  sink->finished(1, {});
  sink->close();
  EXPECT_EQ(test::read_file(dir / "n1.out"), "a\nb");
  EXPECT_EQ(test::read_file(dir / "n1.err"), "err");
  EXPECT_TRUE(std::filesystem::exists(dir / "n2.out"));
  EXPECT_EQ(std::filesystem::file_size(dir / "n2.err"), 0u);
}

TEST(OutdirSink, UncreatableDirectoryIsFatal) {
  test::TempDir scratch;
  auto file = scratch.path() / "outdir_is_a_file";
  std::ofstream(file) << "x";
  EXPECT_THROW(make_outdir_sink({"n1"}, (file / "sub").string()), FatalError);
}

}  // namespace
}  // namespace pdx
