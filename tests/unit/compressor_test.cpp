#include "archive/compressor.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include "tests/unit/archive_memory_sink.h"

namespace pdx {

namespace {

std::string sample() {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + (i % 7 ? " " : "\n");
  return text;
}

std::string compress(Codec codec, int threads, const std::string& input) {
  test::MemorySink out;
  auto sink = compressing_sink({codec, std::nullopt, threads}, out);
  EXPECT_TRUE(sink.ok());
  for (std::size_t at = 0; at < input.size(); at += 10000) {
    EXPECT_TRUE(
        (*sink)->write(input.data() + at, std::min<std::size_t>(10000, input.size() - at)).ok());
  }
  EXPECT_TRUE((*sink)->finish().ok());
  EXPECT_TRUE(out.finished);
  return out.bytes;
}

}  // namespace

TEST(Compressor, ZstdFramesCarryAChecksumAndDecodeBack) {
  std::string input = sample();
  for (int threads : {1, 2}) {
    std::string z = compress(Codec::zstd, threads, input);
    EXPECT_LT(z.size(), input.size() / 3);
    ASSERT_GT(z.size(), 5u);
    EXPECT_TRUE(z[4] & 0x04);  // Frame_Header_Descriptor: Content_Checksum_flag
    std::string back(input.size(), '\0');
    std::size_t n = ZSTD_decompress(back.data(), back.size(), z.data(), z.size());
    ASSERT_FALSE(ZSTD_isError(n));
    EXPECT_EQ(back.substr(0, n), input);
  }
}

TEST(Compressor, GzipIsOneMemberGunzipReadsWithAnyThreads) {
  std::string input = sample();  // more than one 1 MiB block of the parallel compressor
  ASSERT_GT(input.size(), 1u << 20);
  for (int threads : {1, 2, 3}) {
    std::string gz = compress(Codec::gzip, threads, input);
    ASSERT_GE(gz.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
    z_stream z{};
    inflateInit2(&z, 15 + 16);
    std::string back(input.size() + 1, '\0');
    z.next_in = reinterpret_cast<Bytef*>(gz.data());
    z.avail_in = static_cast<uInt>(gz.size());
    z.next_out = reinterpret_cast<Bytef*>(back.data());
    z.avail_out = static_cast<uInt>(back.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END) << threads;  // checks CRC and length
    EXPECT_EQ(z.avail_in, 0u);                                  // one member: nothing after
    back.resize(back.size() - z.avail_out);
    inflateEnd(&z);
    EXPECT_EQ(back, input) << threads;
  }
}

TEST(Compressor, LevelsOutOfRangeAreErrors) {
  test::MemorySink out;
  EXPECT_FALSE(compressing_sink({Codec::gzip, 10, 1}, out).ok());
  EXPECT_FALSE(compressing_sink({Codec::zstd, 0, 1}, out).ok());
  EXPECT_TRUE(compressing_sink({Codec::zstd, 19, 1}, out).ok());
}

}  // namespace pdx
