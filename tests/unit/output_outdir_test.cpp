#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/output.h"
#include "temp_file.h"

namespace pdx {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(OutdirSink, FilePerHostAndStreamEvenWhenEmpty) {
  auto dir = test::temp_dir() / "outdir_test";
  std::filesystem::remove_all(dir);
  auto sink = make_outdir_sink({"n1", "n2"}, dir.string());
  sink->output(0, Stream::out, "a\nb");
  sink->output(0, Stream::err, "err");
  sink->finished(0, {});
  sink->finished(1, {});
  sink->close();
  EXPECT_EQ(slurp(dir / "n1.out"), "a\nb");
  EXPECT_EQ(slurp(dir / "n1.err"), "err");
  EXPECT_TRUE(std::filesystem::exists(dir / "n2.out"));
  EXPECT_EQ(std::filesystem::file_size(dir / "n2.err"), 0u);
}

TEST(OutdirSink, UncreatableDirectoryIsFatal) {
  auto file = test::temp_dir() / "outdir_is_a_file";
  std::ofstream(file) << "x";
  EXPECT_THROW(make_outdir_sink({"n1"}, (file / "sub").string()), FatalError);
}

}  // namespace
}  // namespace pdx
