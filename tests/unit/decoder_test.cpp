#include "archive/decoder.h"

#include <gtest/gtest.h>
#include <lzma.h>

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
  if (auto ok = parts.check(); !ok) return Error{ok.error()};
  StreamDecoder decoder(parts);
  if (auto ok = decoder.open(); !ok) return Error{ok.error()};
  std::string out;
  std::vector<char> buf(4096);
  for (;;) {
    auto n = decoder.read(buf.data(), buf.size());
    if (!n) return Error{n.error()};
    if (*n == 0) return out;
    out.append(buf.data(), *n);
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

}  // namespace pdx
