#include "archive/compressor.h"

#include <bzlib.h>
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

// Decodes bzip2 streams one after another, as bzip2 -d does; "" if one fails.
std::string bunzip2(const std::string& in) {
  std::string out;
  std::size_t at = 0;
  char buffer[1 << 16];
  while (at < in.size()) {
    bz_stream z{};
    BZ2_bzDecompressInit(&z, 0, 0);
    z.next_in = const_cast<char*>(in.data() + at);
    z.avail_in = static_cast<unsigned int>(in.size() - at);
    int r = BZ_OK;
    while (r == BZ_OK) {
      z.next_out = buffer;
      z.avail_out = sizeof buffer;
      r = BZ2_bzDecompress(&z);
      out.append(buffer, sizeof buffer - z.avail_out);
    }
    at = in.size() - z.avail_in;
    BZ2_bzDecompressEnd(&z);
    if (r != BZ_STREAM_END) return "";
  }
  return out;
}

TEST(Compressor, Bzip2IsOneStreamPerBlockBunzip2ReadsWithAnyThreads) {
  std::string input = sample();  // more than one 900 kB block
  ASSERT_GT(input.size(), 900000u);
  std::string one = compress(Codec::bzip2, 1, input);
  for (int threads : {1, 2, 3}) {
    std::string bz = compress(Codec::bzip2, threads, input);
    EXPECT_EQ(bz, one) << threads;  // the same bytes whatever the threads
    EXPECT_EQ(bz.rfind("BZh9", 0), 0u);
    EXPECT_NE(bz.find("BZh9", 4), std::string::npos);  // a second stream
    EXPECT_EQ(bunzip2(bz), input) << threads;
  }
  EXPECT_EQ(bunzip2(compress(Codec::bzip2, 2, "")), "");
  EXPECT_FALSE(compress(Codec::bzip2, 2, "").empty());  // an empty stream, still a bzip2 file
}

TEST(Compressor, LevelsOutOfRangeAreErrors) {
  test::MemorySink out;
  EXPECT_FALSE(compressing_sink({Codec::gzip, 10, 1}, out).ok());
  EXPECT_FALSE(compressing_sink({Codec::zstd, 0, 1}, out).ok());
  EXPECT_FALSE(compressing_sink({Codec::bzip2, 0, 1}, out).ok());
  EXPECT_TRUE(compressing_sink({Codec::bzip2, 1, 1}, out).ok());
  EXPECT_TRUE(compressing_sink({Codec::zstd, 19, 1}, out).ok());
}

}  // namespace pdx
