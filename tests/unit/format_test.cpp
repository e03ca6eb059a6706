#include "archive/format.h"

#include <gtest/gtest.h>

namespace pdx {

TEST(Format, InferredFromTheName) {
  EXPECT_EQ(infer_format("data.tar.gz"), Format::tar_gz);
  EXPECT_EQ(infer_format("x.tgz"), Format::tar_gz);
  EXPECT_EQ(infer_format("dir/x.tar.bz2"), Format::tar_bz2);
  EXPECT_EQ(infer_format("x.tar.xz"), Format::tar_xz);
  EXPECT_EQ(infer_format("x.tar.zst"), Format::tar_zst);
  EXPECT_EQ(infer_format("x.tzst"), Format::tar_zst);
  EXPECT_EQ(infer_format("x.tar"), Format::tar);
  EXPECT_EQ(infer_format("x.zip"), Format::zip);
  EXPECT_EQ(infer_format("x.gz"), std::nullopt);
  EXPECT_EQ(infer_format("tar"), std::nullopt);
  EXPECT_EQ(infer_format("x.tar.zst.part-0"), std::nullopt);
}

TEST(Format, ParsedByNameAndNamedBack) {
  for (Format f : {Format::tar, Format::tar_gz, Format::tar_bz2, Format::tar_xz, Format::tar_zst,
                   Format::zip}) {
    EXPECT_EQ(*parse_format(format_name(f)), f);
  }
  EXPECT_EQ(format_name(*parse_format("tgz")), "tar.gz");
  EXPECT_FALSE(parse_format("rar").ok());
}

}  // namespace pdx
