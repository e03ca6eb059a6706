#include "archive/compressor.h"

#include <bzlib.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include "archive/decoder.h"
#include "archive/part_reader.h"
#include "archive/split_writer.h"
#include "tests/unit/archive_memory_sink.h"
#include "tests/unit/scratch.h"

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

namespace {

// Random bytes (incompressible) then sample() text (compressible).
std::string mixed_input() {
  std::string input;
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 300000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    input.push_back(static_cast<char>(x));
  }
  return input + sample();
}

}  // namespace

TEST(Compressor, FramedPartsEndTheirFrameAndStayWithinTheSize) {
  std::string input = mixed_input();
  for (Codec codec : {Codec::zstd, Codec::gzip}) {
    for (int threads : {1, 3}) {
      for (std::uint64_t part_size : {4096u, 65536u, 1000000u}) {
        test::TempDir dir;
        PartFraming framing = codec == Codec::zstd ? PartFraming::zstd : PartFraming::gzip;
        SplitWriter parts(PartNaming(dir / "x", 4), part_size, Overwrite::no, Checksum::none,
                          framing);
        auto sink = compressing_sink({codec, std::nullopt, threads}, parts);
        ASSERT_TRUE(sink.ok());
        for (std::size_t at = 0; at < input.size(); at += 10000) {
          auto n = std::min<std::size_t>(10000, input.size() - at);
          ASSERT_TRUE((*sink)->write(input.data() + at, n).ok());
        }
        ASSERT_TRUE((*sink)->finish().ok());
        std::vector<std::string> names;
        std::uint64_t total = 0;
        for (const auto& file : parts.files()) {
          names.push_back(file.name);
          EXPECT_LE(file.size, part_size);
          total += file.size;
          // Each part is decodable on its own: its frames or members end in it.
          std::string bytes = test::read_file(file.name);
          ASSERT_TRUE(decode_part_header(bytes).has_value());
          for (std::size_t at = 0; codec == Codec::zstd && at < bytes.size();) {
            std::size_t frame = ZSTD_findFrameCompressedSize(bytes.data() + at, bytes.size() - at);
            ASSERT_FALSE(ZSTD_isError(frame)) << file.name << " at " << at;
            at += frame;
          }
        }
        // Parts are filled: no more than one part in 8 wasted overall (small parts lose more to
        // the header and the margin kept for ending a frame).
        if (part_size >= 65536) {
          EXPECT_LE(names.size(), total / (part_size - part_size / 8) + 1)
              << "codec " << static_cast<int>(codec) << " threads " << threads << " size "
              << part_size;
        }
        PartReader reader(names);
        ASSERT_TRUE(reader.check().ok());
        StreamDecoder decoder(reader);
        ASSERT_TRUE(decoder.open().ok());
        std::string back;
        std::vector<char> buffer(1 << 16);
        for (;;) {
          auto n = decoder.read(buffer.data(), buffer.size());
          ASSERT_TRUE(n.ok()) << n.error();
          if (*n == 0) break;
          back.append(buffer.data(), *n);
        }
        EXPECT_TRUE(back == input) << "codec " << static_cast<int>(codec) << " threads " << threads
                                   << " size " << part_size;
      }
    }
  }
}

}  // namespace pdx
