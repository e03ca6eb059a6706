#include "archive/foreign_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace pdx {
namespace {

std::optional<std::string_view> looks_like(const std::string& head) {
  return foreign_format(std::span<const char>(head.data(), head.size()));
}

// A ustar header block for `name`, its checksum filled in.
std::string tar_block(const std::string& name) {
  std::string block(512, '\0');
  auto put = [&block](std::size_t at, const std::string& field) {
    std::copy(field.begin(), field.end(), block.begin() + static_cast<std::ptrdiff_t>(at));
  };
  put(0, name);
  put(100, "0000644");
  put(124, "00000000000");
  put(156, "0");
  put(257, "ustar");
  put(148, std::string(8, ' '));
  unsigned sum = 0;
  for (char c : block) sum += static_cast<unsigned char>(c);
  char checksum[8];
  std::snprintf(checksum, sizeof checksum, "%06o", sum);
  put(148, checksum);
  return block;
}

TEST(ForeignFormatTest, TellsCompressionsPdxDoesNotRead) {
  EXPECT_EQ(looks_like("LZIP\x01\xce\x00\x33"), "lzip compressed data");
  EXPECT_EQ(looks_like(std::string("\x04\x22\x4d\x18\x64\x40", 6)), "lz4 compressed data");
  EXPECT_EQ(looks_like(std::string("\x89LZO\x00\r\n\x1a\n\x10", 10)), "lzop compressed data");
  EXPECT_EQ(looks_like("\x1f\x9d\x90"), "compress (.Z) data");
}

TEST(ForeignFormatTest, TellsArchivesAndImages) {
  EXPECT_EQ(looks_like("7z\xbc\xaf\x27\x1c\x00\x04"), "a 7z archive");
  EXPECT_EQ(looks_like("Rar!\x1a\x07\x01"), "a RAR archive");
  EXPECT_EQ(looks_like("!<arch>\ndebian-binary"), "an ar archive");
  std::string iso(40000, '\0');
  iso.replace(32769, 5, "CD001");
  EXPECT_EQ(looks_like(iso), "ISO 9660");
  std::string udf(40000, '\0');
  udf.replace(32769, 5, "BEA01");
  EXPECT_EQ(looks_like(udf), "UDF");
}

TEST(ForeignFormatTest, LeavesWhatPdxReadsAndWhatItCannotTell) {
  EXPECT_EQ(looks_like("\x1f\x8b\x08"), std::nullopt);  // gzip
  EXPECT_EQ(looks_like("PK\x03\x04"), std::nullopt);    // zip
  EXPECT_EQ(looks_like("070701"), std::nullopt);        // cpio
  EXPECT_EQ(looks_like("just text"), std::nullopt);
  EXPECT_EQ(looks_like(""), std::nullopt);
  EXPECT_EQ(looks_like(std::string(32769, '\0') + "CD0"), std::nullopt);  // too short to tell
}

TEST(ForeignFormatTest, ATarIsATarWhateverItsFirstNameOrData) {
  EXPECT_EQ(looks_like(tar_block("LZIP\x01")), std::nullopt);
  std::string tar = tar_block("image.iso") + std::string(40000, '\0');
  tar.replace(32769, 5, "CD001");
  EXPECT_EQ(looks_like(tar), std::nullopt);
}

}  // namespace
}  // namespace pdx
