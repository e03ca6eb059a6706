#include "archive/part_header.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

namespace pdx {

TEST(PartHeader, RoundTripsInBothFramings) {
  PartHeader header{random_pack_id(), 7, 123456789, true};
  for (PartFraming framing : {PartFraming::zstd, PartFraming::gzip}) {
    std::string element = encode_part_header(framing, header);
    EXPECT_LE(element.size(), kPartHeaderMax);
    auto back = decode_part_header(element);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->pack_id, header.pack_id);
    EXPECT_EQ(back->index, 7u);
    EXPECT_EQ(back->length, 123456789u);
    EXPECT_TRUE(back->last);
    // Only a whole element decodes.
    EXPECT_FALSE(decode_part_header(std::string_view(element).substr(0, element.size() - 11)));
  }
  EXPECT_FALSE(decode_part_header(std::string("\x28\xb5\x2f\xfd plain zstd")));
  EXPECT_NE(random_pack_id(), random_pack_id());
}

TEST(PartHeader, StandardDecodersSkipTheElement) {
  PartHeader header{random_pack_id(), 0, 0, false};
  // zstd: a skippable frame before a frame of "hello" decodes to "hello".
  std::string z = encode_part_header(PartFraming::zstd, header);
  std::string frame(ZSTD_compressBound(5), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), "hello", 5, 3));
  z += frame;
  char out[16];
  std::size_t n = ZSTD_decompress(out, sizeof out, z.data(), z.size());
  ASSERT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  EXPECT_EQ(std::string(out, n), "hello");
  // gzip: an empty member with a CRC-32 and length that check out.
  std::string gz = encode_part_header(PartFraming::gzip, header);
  z_stream s{};
  inflateInit2(&s, 15 + 16);
  s.next_in = reinterpret_cast<Bytef*>(gz.data());
  s.avail_in = static_cast<uInt>(gz.size());
  s.next_out = reinterpret_cast<Bytef*>(out);
  s.avail_out = sizeof out;
  EXPECT_EQ(inflate(&s, Z_FINISH), Z_STREAM_END);
  EXPECT_EQ(s.avail_in, 0u);
  EXPECT_EQ(s.total_out, 0u);
  inflateEnd(&s);
}

}  // namespace pdx
