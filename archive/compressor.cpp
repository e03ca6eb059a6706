#include "archive/compressor.h"

#include <zlib.h>
#include <zstd.h>

#include <string>
#include <vector>

namespace pdx {

namespace {

constexpr std::size_t kOutputSize = 1 << 20;

// zstd with a content checksum on every frame, multi-threaded by libzstd itself.
class ZstdSink : public ByteSink {
 public:
  ZstdSink(ByteSink& next, int level, int threads)
      : next_(next), cctx_(ZSTD_createCCtx()), out_(kOutputSize) {
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
    if (threads > 1) ZSTD_CCtx_setParameter(cctx_, ZSTD_c_nbWorkers, threads);
  }
  ~ZstdSink() override { ZSTD_freeCCtx(cctx_); }

  Result<void> write(const void* data, std::size_t size) override {
    ZSTD_inBuffer in{data, size, 0};
    while (in.pos < in.size) {
      if (auto ok = compress(in, ZSTD_e_continue); !ok) return Error{ok.error()};
    }
    return {};
  }
  Result<void> finish() override {
    ZSTD_inBuffer in{nullptr, 0, 0};
    for (;;) {
      auto remaining = compress(in, ZSTD_e_end);
      if (!remaining) return Error{remaining.error()};
      if (*remaining == 0) break;
    }
    return next_.finish();
  }
  std::vector<WrittenFile> files() const override { return next_.files(); }
  std::uint64_t written() const override { return next_.written(); }

 private:
  Result<std::size_t> compress(ZSTD_inBuffer& in, ZSTD_EndDirective mode) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    std::size_t r = ZSTD_compressStream2(cctx_, &out, &in, mode);
    if (ZSTD_isError(r))
      return Error{std::string("zstd compression failed: ") + ZSTD_getErrorName(r)};
    if (auto ok = next_.write(out_.data(), out.pos); !ok) return Error{ok.error()};
    return r;
  }

  ByteSink& next_;
  ZSTD_CCtx* cctx_;
  std::vector<char> out_;
};

// gzip, one member, as gzip(1) writes it.
class GzipSink : public ByteSink {
 public:
  GzipSink(ByteSink& next, int level) : next_(next), out_(kOutputSize) {
    deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  }
  ~GzipSink() override { deflateEnd(&z_); }

  Result<void> write(const void* data, std::size_t size) override {
    z_.next_in = static_cast<Bytef*>(const_cast<void*>(data));
    z_.avail_in = static_cast<uInt>(size);
    while (z_.avail_in > 0) {
      if (auto ok = deflate_some(Z_NO_FLUSH); !ok) return Error{ok.error()};
    }
    return {};
  }
  Result<void> finish() override {
    for (;;) {
      auto r = deflate_some(Z_FINISH);
      if (!r) return Error{r.error()};
      if (*r == Z_STREAM_END) break;
    }
    return next_.finish();
  }
  std::vector<WrittenFile> files() const override { return next_.files(); }
  std::uint64_t written() const override { return next_.written(); }

 private:
  Result<int> deflate_some(int flush) {
    z_.next_out = reinterpret_cast<Bytef*>(out_.data());
    z_.avail_out = static_cast<uInt>(out_.size());
    int r = deflate(&z_, flush);
    if (r == Z_STREAM_ERROR) return Error{"gzip compression failed"};
    if (auto ok = next_.write(out_.data(), out_.size() - z_.avail_out); !ok)
      return Error{ok.error()};
    return r;
  }

  ByteSink& next_;
  z_stream z_{};
  std::vector<char> out_;
};

}  // namespace

Result<std::unique_ptr<ByteSink>> compressing_sink(const CompressorOptions& options,
                                                   ByteSink& next) {
  if (options.codec == Codec::zstd) {
    int level = options.level.value_or(3);
    if (level < 1 || level > ZSTD_maxCLevel()) {
      return Error{"--level " + std::to_string(level) + ": zstd levels are 1 to " +
                   std::to_string(ZSTD_maxCLevel())};
    }
    return std::unique_ptr<ByteSink>(std::make_unique<ZstdSink>(next, level, options.threads));
  }
  int level = options.level.value_or(6);
  if (level < 1 || level > 9) {
    return Error{"--level " + std::to_string(level) + ": gzip levels are 1 to 9"};
  }
  return std::unique_ptr<ByteSink>(std::make_unique<GzipSink>(next, level));
}

}  // namespace pdx
