#include "archive/decoder.h"

#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "archive/compressor.h"
#include "tests/unit/archive_memory_sink.h"
#include "tests/unit/scratch.h"

namespace pdx {

namespace {

// pdx compresses xz through libarchive, not compressing_sink: liblzma's one-shot encoder.
std::string xz_compressed(const std::string& input) {
  std::string out(lzma_stream_buffer_bound(input.size()), '\0');
  std::size_t size = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const uint8_t*>(input.data()), input.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &size, out.size()),
            LZMA_OK);
  out.resize(size);
  return out;
}

// As xz -T2 --block-size=64KiB writes it: blocks with their sizes in their headers, which
// liblzma's threaded decoder decodes in parallel.
std::string xz_blocks(const std::string& input) {
  lzma_stream xz = LZMA_STREAM_INIT;
  lzma_mt mt{};
  mt.threads = 2;
  mt.block_size = 64 << 10;
  mt.preset = 1;
  mt.check = LZMA_CHECK_CRC64;
  EXPECT_EQ(lzma_stream_encoder_mt(&xz, &mt), LZMA_OK);
  std::string out(lzma_stream_buffer_bound(input.size()), '\0');
  xz.next_in = reinterpret_cast<const uint8_t*>(input.data());
  xz.avail_in = input.size();
  xz.next_out = reinterpret_cast<uint8_t*>(out.data());
  xz.avail_out = out.size();
  EXPECT_EQ(lzma_code(&xz, LZMA_FINISH), LZMA_STREAM_END);
  out.resize(out.size() - xz.avail_out);
  lzma_end(&xz);
  return out;
}

enum class Compression { gzip, zstd, bzip2, xz };
constexpr Compression kAll[] = {Compression::gzip, Compression::zstd, Compression::bzip2,
                                Compression::xz};

std::string compressed(Compression format, const std::string& input) {
  if (format == Compression::xz) return xz_compressed(input);
  Codec codec = format == Compression::gzip   ? Codec::gzip
                : format == Compression::zstd ? Codec::zstd
                                              : Codec::bzip2;
  test::MemorySink out;
  auto sink = compressing_sink({codec, std::nullopt, 1}, out);
  EXPECT_TRUE((*sink)->write(input.data(), input.size()).ok());
  EXPECT_TRUE((*sink)->finish().ok());
  return out.bytes;
}

// Decodes the file `path`; the Error's message when decoding fails.
Result<std::string> decode(const std::string& path) {
  PartReader parts({path});
  TRY(parts.check());
  StreamDecoder decoder(parts);
  TRY(decoder.open());
  std::string out;
  std::vector<char> buf(4096);
  for (;;) {
    auto n = TRY(decoder.read(buf.data(), buf.size()));
    if (n == 0) return out;
    out.append(buf.data(), n);
  }
}

std::string text() {
  std::string t;
  for (int i = 0; i < 50000; ++i) t += "line " + std::to_string(i) + "\n";
  return t;
}

}  // namespace

TEST(StreamDecoder, DecodesEveryCodec) {
  test::TempDir dir;
  for (Compression codec : kAll) {
    test::write_file(dir / "a", compressed(codec, text()));
    auto out = decode(dir / "a");
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(*out, text());
  }
}

TEST(StreamDecoder, PassesOtherDataThrough) {
  test::TempDir dir;
  test::write_file(dir / "a", "PK plain bytes");
  PartReader parts({dir / "a"});
  ASSERT_TRUE(parts.check().ok());
  StreamDecoder decoder(parts);
  ASSERT_TRUE(decoder.open().ok());
  EXPECT_TRUE(decoder.passthrough());
  EXPECT_EQ(*decode(dir / "a"), "PK plain bytes");
}

TEST(StreamDecoder, ReadsMembersOneAfterAnother) {
  test::TempDir dir;
  for (Compression codec : kAll) {
    test::write_file(dir / "a", compressed(codec, "one\n") + compressed(codec, "two\n"));
    EXPECT_EQ(*decode(dir / "a"), "one\ntwo\n");
  }
}

TEST(StreamDecoder, CorruptDataFailsItsChecksum) {
  test::TempDir dir;
  for (Compression codec : kAll) {
    std::string data = compressed(codec, text());
    data[data.size() / 2] ^= 0x55;
    test::write_file(dir / "a", data);
    auto out = decode(dir / "a");
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.error().find(dir / "a"), std::string::npos);
    EXPECT_NE(out.error().find("corrupt"), std::string::npos) << out.error();
  }
}

TEST(StreamDecoder, TruncatedDataEndsEarly) {
  test::TempDir dir;
  for (Compression codec : kAll) {
    std::string data = compressed(codec, text());
    test::write_file(dir / "a", data.substr(0, data.size() - 10));
    auto out = decode(dir / "a");
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.error().find("ends early"), std::string::npos) << out.error();
  }
}

// A pipe hands the decoder what was written so far, here a byte at a time at first: the bytes
// held between reads stay in order, before and after the format is told.
TEST(StreamDecoder, DecodesWhatAPipeBringsInSmallPieces) {
  std::vector<std::pair<std::string, std::string>> cases;  // stream, decoded
  for (Compression codec : kAll) cases.emplace_back(compressed(codec, text()), text());
  cases.emplace_back("PK plain bytes, passed through", "PK plain bytes, passed through");
  for (const auto& [stream, decoded] : cases) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::thread writer([&stream, fd = fds[1]] {
      for (std::size_t at = 0; at < stream.size();) {
        std::size_t n = at < 8 ? 1 : std::min<std::size_t>(1000, stream.size() - at);
        ASSERT_EQ(::write(fd, stream.data() + at, n), static_cast<ssize_t>(n));
        at += n;
        if (at <= 8) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      ::close(fd);
    });
    auto out = decode("/proc/self/fd/" + std::to_string(fds[0]));
    writer.join();
    ::close(fds[0]);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(*out, decoded);
  }
}

TEST(StreamDecoder, XzInBlocksDecodesWholeAndChecked) {
  test::TempDir dir;
  std::string input;
  for (int i = 0; i < 8; ++i) input += text();  // ~5 MiB: ~80 blocks
  std::string xz = xz_blocks(input);
  test::write_file(dir / "a.xz", xz + xz);  // two streams
  auto out = decode(dir / "a.xz");
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_TRUE(*out == input + input);

  test::write_file(dir / "cut.xz", xz.substr(0, xz.size() * 2 / 3));
  auto cut = decode(dir / "cut.xz");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("xz data ends early"), std::string::npos) << cut.error();

  std::string bad = xz;
  bad[bad.size() / 2] ^= 0x55;
  test::write_file(dir / "bad.xz", bad);
  auto broken = decode(dir / "bad.xz");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().find("xz data is corrupt"), std::string::npos) << broken.error();
}

}  // namespace pdx
