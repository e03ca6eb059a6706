#include "archive/decoder.h"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include "archive/foreign_format.h"

namespace pdx {

namespace {

constexpr std::size_t kInputSize = 1 << 20;
constexpr unsigned char kGzipMagic[] = {0x1f, 0x8b};
constexpr unsigned char kZstdMagic[] = {0x28, 0xb5, 0x2f, 0xfd};
constexpr unsigned char kBzip2Magic[] = {'B', 'Z', 'h'};
constexpr unsigned char kXzMagic[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};

template <std::size_t N>
bool starts_with(std::span<const char> data, const unsigned char (&magic)[N]) {
  return data.size() >= N && std::memcmp(data.data(), magic, N) == 0;
}

// What one decode call did.
struct Step {
  std::size_t consumed = 0;
  std::size_t produced = 0;
};

}  // namespace

struct StreamDecoder::Codec {
  virtual ~Codec() = default;
  virtual const char* name() const = 0;
  virtual Result<Step> decode(const char* in, std::size_t in_size, char* out,
                              std::size_t out_size) = 0;
  /// True inside a member or frame that has not ended: the input must not end here.
  virtual bool mid_stream() const = 0;
  /// True when a member ended and the next byte must say whether another one follows.
  virtual bool between_members() const { return false; }
  /// The first byte of a member: another follows only if the next byte is this one.
  virtual unsigned char member_start() const { return 0; }
  virtual void next_member() {}
};

namespace {

// gzip, member after member as gzip -d reads them; zlib checks each member's CRC-32 and size.
class GzipCodec : public StreamDecoder::Codec {
 public:
  GzipCodec() { inflateInit2(&z_, 15 + 16); }
  ~GzipCodec() override { inflateEnd(&z_); }
  const char* name() const override { return "gzip"; }
  Result<Step> decode(const char* in, std::size_t in_size, char* out,
                      std::size_t out_size) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    z_.avail_in = static_cast<uInt>(in_size);
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(out_size);
    int r = inflate(&z_, Z_NO_FLUSH);
    if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
      return Error{std::string("gzip data is corrupt (") + (z_.msg ? z_.msg : "inflate failed") +
                   ")"};
    }
    member_ended_ = r == Z_STREAM_END;
    return Step{in_size - z_.avail_in, out_size - z_.avail_out};
  }
  bool mid_stream() const override { return !member_ended_; }
  bool between_members() const override { return member_ended_; }
  unsigned char member_start() const override { return kGzipMagic[0]; }
  void next_member() override {
    inflateReset(&z_);
    member_ended_ = false;
  }

 private:
  z_stream z_{};
  bool member_ended_ = false;
};

// bzip2, stream after stream as bzip2 -d reads them (pbzip2 and pdx pack -j write several);
// libbz2 checks each block's and each stream's CRC.
class Bzip2Codec : public StreamDecoder::Codec {
 public:
  Bzip2Codec() { BZ2_bzDecompressInit(&bz_, 0, 0); }
  ~Bzip2Codec() override { BZ2_bzDecompressEnd(&bz_); }
  const char* name() const override { return "bzip2"; }
  Result<Step> decode(const char* in, std::size_t in_size, char* out,
                      std::size_t out_size) override {
    bz_.next_in = const_cast<char*>(in);
    bz_.avail_in = static_cast<unsigned>(std::min<std::size_t>(in_size, UINT32_MAX));
    bz_.next_out = out;
    bz_.avail_out = static_cast<unsigned>(std::min<std::size_t>(out_size, UINT32_MAX));
    unsigned in_before = bz_.avail_in, out_before = bz_.avail_out;
    int r = BZ2_bzDecompress(&bz_);
    if (r != BZ_OK && r != BZ_STREAM_END)
      return Error{"bzip2 data is corrupt (libbz2 error " + std::to_string(r) + ")"};
    stream_ended_ = r == BZ_STREAM_END;
    return Step{in_before - bz_.avail_in, out_before - bz_.avail_out};
  }
  bool mid_stream() const override { return !stream_ended_; }
  bool between_members() const override { return stream_ended_; }
  unsigned char member_start() const override { return kBzip2Magic[0]; }
  void next_member() override {
    BZ2_bzDecompressEnd(&bz_);
    bz_ = bz_stream{};
    BZ2_bzDecompressInit(&bz_, 0, 0);
    stream_ended_ = false;
  }

 private:
  bz_stream bz_{};
  bool stream_ended_ = false;
};

// xz, stream after stream; liblzma checks each block's check (CRC64 by default) and the index.
// Blocks are decoded on a thread per core when the stream has several whose sizes are written
// in their headers (what xz -T and pdx pack -j write), as xz -T0 -d does; else on one thread.
class XzCodec : public StreamDecoder::Codec {
 public:
  XzCodec() { next_member(); }
  ~XzCodec() override { lzma_end(&xz_); }
  const char* name() const override { return "xz"; }
  Result<Step> decode(const char* in, std::size_t in_size, char* out,
                      std::size_t out_size) override {
    xz_.next_in = reinterpret_cast<const uint8_t*>(in);
    xz_.avail_in = in_size;
    xz_.next_out = reinterpret_cast<uint8_t*>(out);
    xz_.avail_out = out_size;
    if (init_ != LZMA_OK)
      return Error{"cannot start xz decoding (liblzma error " + std::to_string(init_) + ")"};
    lzma_ret r = lzma_code(&xz_, LZMA_RUN);
    if (r != LZMA_OK && r != LZMA_STREAM_END && r != LZMA_BUF_ERROR)
      return Error{"xz data is corrupt (liblzma error " + std::to_string(r) + ")"};
    stream_ended_ = r == LZMA_STREAM_END;
    return Step{in_size - xz_.avail_in, out_size - xz_.avail_out};
  }
  bool mid_stream() const override { return !stream_ended_; }
  bool between_members() const override { return stream_ended_; }
  unsigned char member_start() const override { return kXzMagic[0]; }
  void next_member() override {
    lzma_end(&xz_);
    xz_ = LZMA_STREAM_INIT;
    lzma_mt mt{};
    mt.threads = std::max(1u, std::thread::hardware_concurrency());
    mt.memlimit_threading = lzma_physmem() / 4;  // past it, one thread (xz's default too)
    mt.memlimit_stop = UINT64_MAX;
    init_ = lzma_stream_decoder_mt(&xz_, &mt);
    stream_ended_ = false;
  }

 private:
  lzma_stream xz_ = LZMA_STREAM_INIT;
  lzma_ret init_ = LZMA_OK;
  bool stream_ended_ = false;
};

// zstd, frame after frame; libzstd checks each frame's checksum when it has one.
class ZstdCodec : public StreamDecoder::Codec {
 public:
  ZstdCodec() : dctx_(ZSTD_createDCtx()) {}
  ~ZstdCodec() override { ZSTD_freeDCtx(dctx_); }
  const char* name() const override { return "zstd"; }
  Result<Step> decode(const char* in, std::size_t in_size, char* out,
                      std::size_t out_size) override {
    ZSTD_inBuffer input{in, in_size, 0};
    ZSTD_outBuffer output{out, out_size, 0};
    std::size_t r = ZSTD_decompressStream(dctx_, &output, &input);
    if (ZSTD_isError(r))
      return Error{std::string("zstd data is corrupt (") + ZSTD_getErrorName(r) + ")"};
    mid_frame_ = r != 0;
    return Step{input.pos, output.pos};
  }
  bool mid_stream() const override { return mid_frame_; }

 private:
  ZSTD_DCtx* dctx_;
  bool mid_frame_ = false;
};

}  // namespace

StreamDecoder::StreamDecoder(PartReader& in) : in_(in) {}
StreamDecoder::~StreamDecoder() = default;

Result<bool> StreamDecoder::fill() {
  // open() adds to what it holds; read() fills only once all of it was taken.
  if (input_pos_ == input_end_) input_pos_ = input_end_ = 0;
  if (input_.size() < input_end_ + kInputSize) input_.resize(input_end_ + kInputSize);
  auto n = in_.read(input_.data() + input_end_, kInputSize);
  if (!n) return Error{n.error(), n.error_kind()};
  input_end_ += *n;
  if (*n == 0) at_end_ = true;
  return *n > 0;
}

Result<void> StreamDecoder::open() {
  while (input_end_ < sizeof kXzMagic && !at_end_) {
    TRY(fill());
  }
  if (starts_with(head(), kGzipMagic)) codec_ = std::make_unique<GzipCodec>();
  if (starts_with(head(), kZstdMagic)) codec_ = std::make_unique<ZstdCodec>();
  if (starts_with(head(), kBzip2Magic)) codec_ = std::make_unique<Bzip2Codec>();
  if (starts_with(head(), kXzMagic)) codec_ = std::make_unique<XzCodec>();
  // Undecoded, head() must show enough to tell a format pdx does not read (an ISO 9660 image
  // says so only after 32 KiB).
  while (!codec_ && input_end_ < kForeignFormatHead && !at_end_) {
    TRY(fill());
  }
  return {};
}

Result<std::size_t> StreamDecoder::read(void* buffer, std::size_t size) {
  char* out = static_cast<char*>(buffer);
  if (!codec_) {  // passthrough: what open() looked at first, then the parts themselves
    if (input_pos_ == input_end_) return in_.read(buffer, size);
    std::size_t n = std::min(size, input_end_ - input_pos_);
    std::memcpy(out, input_.data() + input_pos_, n);
    input_pos_ += n;
    return n;
  }
  for (;;) {
    if (input_pos_ == input_end_) {
      auto more = TRY(fill());
      if (!more) {
        if (!codec_->mid_stream()) return std::size_t{0};
        // A decoder may hold decoded bytes it took all the input for (xz's threads do).
        auto step = codec_->decode(input_.data(), 0, out, size);
        if (step && step->produced > 0) return step->produced;
        if (step && !codec_->mid_stream()) return std::size_t{0};
        return Error{in_.current_part() + ": " + codec_->name() +
                         " data ends early: this part is truncated or parts after it are missing",
                     ErrorKind::bad_input};
      }
    }
    if (codec_->between_members()) {
      // Another member follows only if it starts with the magic; anything else is trailing
      // garbage (zero padding, say), which gzip -d ignores too (xz -d only takes zero padding).
      if (static_cast<unsigned char>(input_[input_pos_]) != codec_->member_start())
        return std::size_t{0};
      codec_->next_member();
    }
    auto step = codec_->decode(input_.data() + input_pos_, input_end_ - input_pos_, out, size);
    if (!step) {
      return Error{in_.current_part() + ": " + step.error() +
                       ": this part or one before it is damaged, or the parts are out of order",
                   ErrorKind::bad_input};
    }
    input_pos_ += step->consumed;
    if (step->produced > 0) return step->produced;
  }
}

}  // namespace pdx
