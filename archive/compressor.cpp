#include "archive/compressor.h"

#include <bzlib.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameProgression
#include <zstd.h>

#include <algorithm>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace pdx {

namespace {

constexpr std::size_t kOutputSize = 1 << 20;

// Framed parts (ByteSink::part_room): input is fed in chunks of at most this, each only when
// the most its frame or member could still grow to fits the part's room.
constexpr std::size_t kFramedChunk = 1 << 20;

// The largest n <= most with bound(n) <= room (0 if none).
template <class Bound>
std::size_t largest_fitting(std::uint64_t room, std::size_t most, Bound bound) {
  std::size_t low = 0, high = most;
  while (low < high) {
    std::size_t mid = low + (high - low + 1) / 2;
    if (bound(mid) <= room) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return bound(low) <= room ? low : 0;
}

// At most what deflate makes of n bytes (stored blocks at worst), a little generously.
std::uint64_t deflate_bound(std::uint64_t n) {
  return n + (n >> 10) + 64;
}

Error part_too_small() {
  return Error{"--split size too small to hold any compressed data after the part header"};
}

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
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      std::size_t n = TRY(fitting_chunk(size));
      ZSTD_inBuffer in{p, n, 0};
      while (in.pos < in.size) {
        TRY(compress(in, ZSTD_e_continue));
      }
      frame_open_ = true;
      p += n;
      size -= n;
    }
    return {};
  }
  Result<void> finish() override {
    TRY(drain(ZSTD_e_end));
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
    TRY(next_.write(out_.data(), out.pos));
    frame_out_ += out.pos;
    return r;
  }

  // Compresses until libzstd holds nothing back (flush: the frame goes on; end: it ends).
  Result<void> drain(ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{nullptr, 0, 0};
    for (;;) {
      auto remaining = TRY(compress(in, mode));
      if (remaining == 0) break;
    }
    if (mode == ZSTD_e_end) {
      frame_open_ = false;
      frame_out_ = 0;
    }
    return {};
  }

  // The most the open frame can still add to the output if it ended now: what libzstd
  // produced but did not hand out, the bound of the input it has not compressed yet, the
  // frame's header and end.
  std::uint64_t pending_bound() const {
    constexpr std::uint64_t kFrameOverhead = ZSTD_FRAMEHEADERSIZE_MAX + 256;
    if (!frame_open_) return kFrameOverhead;
    ZSTD_frameProgression fp = ZSTD_getFrameProgression(cctx_);
    std::uint64_t unflushed = fp.produced > frame_out_ ? fp.produced - frame_out_ : 0;
    return unflushed + ZSTD_compressBound(fp.ingested - fp.consumed) + kFrameOverhead;
  }
  bool held_back() const {
    if (!frame_open_) return false;
    ZSTD_frameProgression fp = ZSTD_getFrameProgression(cctx_);
    return fp.ingested > fp.consumed || fp.produced > frame_out_;
  }

  // How much of `size` bytes to feed now so that the frame, ended at any point, fits the part;
  // flushes, or ends the frame and the part, when even a little would not fit. All of it when
  // the output is not cut into framed parts.
  Result<std::size_t> fitting_chunk(std::size_t size) {
    auto room = TRY(next_.part_room());
    if (!room) return size;
    std::size_t n = std::min(size, kFramedChunk);
    bool flushed = false;
    for (;;) {
      std::uint64_t pending = pending_bound();
      std::uint64_t left = *room > pending ? *room - pending : 0;
      std::size_t fits = largest_fitting(
          left, n, [](std::size_t k) { return static_cast<std::uint64_t>(ZSTD_compressBound(k)); });
      if (fits == n) return n;
      if (!flushed && held_back()) {  // the bound is loose while libzstd holds input back
        TRY(drain(ZSTD_e_flush));
        flushed = true;
        room = TRY(next_.part_room());  // the flush filled some of it
        continue;
      }
      if (fits > 0) return fits;
      if (!frame_open_) return part_too_small();
      TRY(drain(ZSTD_e_end));
      TRY(next_.end_part());
      room = TRY(next_.part_room());
      flushed = false;
    }
  }

  ByteSink& next_;
  ZSTD_CCtx* cctx_;
  std::vector<char> out_;
  bool frame_open_ = false;      // input went into a frame not ended yet
  std::uint64_t frame_out_ = 0;  // bytes of that frame handed out
};

// gzip, one member, as gzip(1) writes it.
class GzipSink : public ByteSink {
 public:
  GzipSink(ByteSink& next, int level) : next_(next), out_(kOutputSize) {
    deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  }
  ~GzipSink() override { deflateEnd(&z_); }

  Result<void> write(const void* data, std::size_t size) override {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      std::size_t n = TRY(fitting_chunk(size));
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
      z_.avail_in = static_cast<uInt>(n);
      while (z_.avail_in > 0) {
        TRY(deflate_some(Z_NO_FLUSH));
      }
      since_flush_in_ += n;
      member_open_ = true;
      p += n;
      size -= n;
    }
    return {};
  }
  Result<void> finish() override {
    TRY(drain(Z_FINISH));
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
    TRY(next_.write(out_.data(), out_.size() - z_.avail_out));
    since_flush_out_ += out_.size() - z_.avail_out;
    return r;
  }

  // Deflates what zlib holds: Z_SYNC_FLUSH (the member goes on) or Z_FINISH (it ends; the
  // next write begins a new member).
  Result<void> drain(int flush) {
    z_.avail_in = 0;
    for (;;) {
      auto r = TRY(deflate_some(flush));
      if (flush == Z_FINISH ? r == Z_STREAM_END : z_.avail_out > 0) break;
    }
    since_flush_in_ = since_flush_out_ = 0;
    if (flush == Z_FINISH) {
      deflateReset(&z_);
      member_open_ = false;
    }
    return {};
  }

  // The most the open member can still add if it ended now: since the last flush, its input
  // deflates to at most deflate_bound() bytes, some of which are out already; then the end.
  std::uint64_t pending_bound() const {
    constexpr std::uint64_t kMemberOverhead = 10 + 8 + 128;  // header, trailer, last block
    if (!member_open_) return kMemberOverhead;
    std::uint64_t bound = deflate_bound(since_flush_in_);
    return (bound > since_flush_out_ ? bound - since_flush_out_ : 0) + kMemberOverhead;
  }

  // As ZstdSink::fitting_chunk: how much to feed now so that the member fits the part.
  Result<std::size_t> fitting_chunk(std::size_t size) {
    auto room = TRY(next_.part_room());
    if (!room) return std::min<std::size_t>(size, UINT32_MAX);
    std::size_t n = std::min(size, kFramedChunk);
    bool flushed = false;
    for (;;) {
      std::uint64_t pending = pending_bound();
      std::uint64_t left = *room > pending ? *room - pending : 0;
      std::size_t fits = largest_fitting(left, n, deflate_bound);
      if (fits == n) return n;
      if (!flushed && since_flush_in_ > 0) {  // the bound is loose until zlib flushes
        TRY(drain(Z_SYNC_FLUSH));
        flushed = true;
        room = TRY(next_.part_room());  // the flush filled some of it
        continue;
      }
      if (fits > 0) return fits;
      if (!member_open_) return part_too_small();
      TRY(drain(Z_FINISH));
      TRY(next_.end_part());
      room = TRY(next_.part_room());
      flushed = false;
    }
  }

  ByteSink& next_;
  z_stream z_{};
  std::vector<char> out_;
  bool member_open_ = false;           // input went into a member not ended yet
  std::uint64_t since_flush_in_ = 0;   // input since the member's last flush point
  std::uint64_t since_flush_out_ = 0;  // output since then
};

// gzip compressed by several threads as pigz does: the stream is cut into blocks, each deflated
// on its own thread with the 32 KiB before it as dictionary and ended with a sync flush, so the
// blocks' outputs joined in order are one deflate stream -- one gzip member, CRC-32s combined.
// At most `threads` blocks are in flight; write() hands out blocks and writes finished ones in
// order, on the caller's thread.
class ParallelGzipSink : public ByteSink {
 public:
  ParallelGzipSink(ByteSink& next, int level, int threads)
      : next_(next), level_(level), threads_(static_cast<std::size_t>(threads)) {
    block_.reserve(kBlockSize);
  }
  ~ParallelGzipSink() override {
    for (auto& job : jobs_) job.wait();
  }

  Result<void> write(const void* data, std::size_t size) override {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      std::size_t n = std::min(size, kBlockSize - block_.size());
      block_.insert(block_.end(), p, p + n);
      p += n;
      size -= n;
      if (block_.size() == kBlockSize) {
        TRY(submit(false));
      }
    }
    return {};
  }

  Result<void> finish() override {
    TRY(submit(true));
    while (!jobs_.empty()) {
      TRY(write_oldest());
    }
    TRY(write_trailer());
    return next_.finish();
  }
  std::vector<WrittenFile> files() const override { return next_.files(); }
  std::uint64_t written() const override { return next_.written(); }

 private:
  static constexpr std::size_t kBlockSize = 1 << 20;
  static constexpr std::size_t kDictionary = 32 << 10;
  static constexpr std::size_t kMinPiece = 1 << 10;  // of a block cut to fill a part

  struct Block {
    std::vector<char> data;
    uLong crc = 0;
    std::size_t length = 0;
  };

  static Block deflate_block(std::vector<char> input, std::vector<char> dictionary, int level,
                             bool last) {
    z_stream z{};
    deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    if (!dictionary.empty()) {
      deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dictionary.data()),
                           static_cast<uInt>(dictionary.size()));
    }
    Block out;
    out.data.resize(deflateBound(&z, static_cast<uLong>(input.size())) + 64);
    z.next_in = reinterpret_cast<Bytef*>(input.data());
    z.avail_in = static_cast<uInt>(input.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data.data());
    z.avail_out = static_cast<uInt>(out.data.size());
    deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
    out.data.resize(out.data.size() - z.avail_out);
    deflateEnd(&z);
    out.crc =
        crc32(0, reinterpret_cast<const Bytef*>(input.data()), static_cast<uInt>(input.size()));
    out.length = input.size();
    return out;
  }

  Result<void> write_trailer() {
    unsigned char trailer[8];
    for (int i = 0; i < 4; ++i) {
      trailer[i] = static_cast<unsigned char>(crc_ >> (8 * i));
      trailer[4 + i] = static_cast<unsigned char>(length_ >> (8 * i));
    }
    return next_.write(trailer, sizeof trailer);
  }

  // Framed parts: before block_ goes out, makes sure the member, ended after it, fits the
  // part: writes the blocks in flight to learn their sizes, and when block_ does not fit,
  // sends the part of it that does, ends the member (an empty final stored block and the
  // trailer) and the part, and goes on with the rest in a new member in the next part.
  Result<void> make_room() {
    constexpr std::uint64_t kMemberOverhead = 10 + 8 + 5 + 64;
    for (;;) {
      auto room = TRY(next_.part_room());
      if (!room) return {};
      std::uint64_t pending = in_flight_bound_ + kMemberOverhead;
      std::uint64_t left = *room > pending ? *room - pending : 0;
      if (deflate_bound(block_.size()) <= left) return {};
      if (!jobs_.empty()) {
        while (!jobs_.empty()) {
          TRY(write_oldest());
        }
        continue;
      }
      // Deflated, a block may take far less room than its bound: send what surely fits and
      // look again, until not even a little does.
      std::size_t fits = largest_fitting(left, block_.size(), deflate_bound);
      if (fits == 0 && !header_written_) return part_too_small();
      if (fits >= kMinPiece || (fits > 0 && !header_written_)) {
        std::vector<char> rest(block_.begin() + static_cast<std::ptrdiff_t>(fits), block_.end());
        block_.resize(fits);
        TRY(dispatch(false));
        TRY(write_oldest());
        block_ = std::move(rest);
        continue;
      }
      static const unsigned char kFinalEmptyBlock[5] = {0x01, 0x00, 0x00, 0xff, 0xff};
      TRY(next_.write(kFinalEmptyBlock, sizeof kFinalEmptyBlock));
      TRY(write_trailer());
      TRY(next_.end_part());
      header_written_ = false;
      crc_ = 0;
      length_ = 0;
      dictionary_.clear();
    }
  }

  Result<void> submit(bool last) {
    TRY(make_room());
    return dispatch(last);
  }

  Result<void> dispatch(bool last) {
    if (!header_written_) {
      static const unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
      TRY(next_.write(kHeader, sizeof kHeader));
      header_written_ = true;
    }
    if (jobs_.size() >= threads_) {
      TRY(write_oldest());
    }
    std::vector<char> next_dictionary(
        block_.end() - static_cast<std::ptrdiff_t>(std::min(block_.size(), kDictionary)),
        block_.end());
    in_flight_bound_ += deflate_bound(block_.size());
    jobs_.push_back(std::async(std::launch::async, deflate_block, std::move(block_),
                               std::move(dictionary_), level_, last));
    dictionary_ = std::move(next_dictionary);
    block_.clear();
    block_.reserve(kBlockSize);
    return {};
  }

  Result<void> write_oldest() {
    Block block = jobs_.front().get();
    jobs_.pop_front();
    in_flight_bound_ -= deflate_bound(block.length);  // the job's input
    crc_ = crc32_combine(crc_, block.crc, static_cast<z_off_t>(block.length));
    length_ += block.length;
    return next_.write(block.data.data(), block.data.size());
  }

  ByteSink& next_;
  int level_;
  std::size_t threads_;
  std::vector<char> block_;
  std::vector<char> dictionary_;
  std::deque<std::future<Block>> jobs_;
  std::uint64_t in_flight_bound_ = 0;  // deflate_bound() of the jobs' inputs, summed
  bool header_written_ = false;
  uLong crc_ = 0;
  std::uint64_t length_ = 0;
};

// bzip2 as pbzip2 and lbzip2 write it: the stream is cut into pieces of one bzip2 block each
// (level x 100,000 bytes), each compressed on a thread of its own into a bzip2 stream of its own;
// bzip2 -d, GNU tar and libarchive read the streams one after another as one. Up to `threads`
// pieces are compressed while the caller's thread reads and frames the next one; write()
// writes finished pieces in order, on the caller's thread.
class ParallelBzip2Sink : public ByteSink {
 public:
  ParallelBzip2Sink(ByteSink& next, int level, int threads)
      : next_(next),
        level_(level),
        piece_size_(static_cast<std::size_t>(level) * 100000),
        threads_(static_cast<std::size_t>(threads)) {
    piece_.reserve(piece_size_);
  }
  ~ParallelBzip2Sink() override {
    for (auto& job : jobs_) job.wait();
  }

  Result<void> write(const void* data, std::size_t size) override {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      std::size_t n = std::min(size, piece_size_ - piece_.size());
      piece_.insert(piece_.end(), p, p + n);
      p += n;
      size -= n;
      if (piece_.size() == piece_size_) {
        TRY(submit());
      }
    }
    return {};
  }

  Result<void> finish() override {
    if (!piece_.empty() || !submitted_) {  // an empty input is still one (empty) stream
      TRY(submit());
    }
    while (!jobs_.empty()) {
      TRY(write_oldest());
    }
    return next_.finish();
  }
  std::vector<WrittenFile> files() const override { return next_.files(); }
  std::uint64_t written() const override { return next_.written(); }

 private:
  // What bzlib allocates for a stream (~7.6 MB at level 9), kept for the next stream: fresh
  // from the system, those pages cost ~1,900 page faults a piece.
  class Memory {
   public:
    static void* allocate(void* self, int items, int size) {
      auto& blocks = static_cast<Memory*>(self)->blocks_;
      auto bytes = static_cast<std::size_t>(items) * static_cast<std::size_t>(size);
      for (auto& block : blocks) {
        if (!block.used && block.size == bytes) {
          block.used = true;
          return block.data.get();
        }
      }
      blocks.push_back({std::make_unique_for_overwrite<char[]>(bytes), bytes, true});
      return blocks.back().data.get();
    }
    static void release(void* self, void* p) {
      for (auto& block : static_cast<Memory*>(self)->blocks_) {
        if (block.data.get() == p) block.used = false;
      }
    }

   private:
    struct Block {
      std::unique_ptr<char[]> data;
      std::size_t size;
      bool used;
    };
    std::vector<Block> blocks_;
  };

  // A piece's input, its compressed output and bzlib's memory; all three are used again for
  // later pieces.
  struct Piece {
    std::vector<char> input;
    std::vector<char> output;
    Memory memory;
    int result = BZ_OK;
  };

  static Piece compress_piece(Piece piece, int level) {
    // bzlib.h: the output is at most 1% larger than the input, plus 600 bytes.
    piece.output.resize(piece.input.size() + piece.input.size() / 100 + 600);
    bz_stream z{};
    z.bzalloc = Memory::allocate;
    z.bzfree = Memory::release;
    z.opaque = &piece.memory;
    piece.result = BZ2_bzCompressInit(&z, level, 0, 0);
    if (piece.result != BZ_OK) return piece;
    z.next_in = piece.input.data();
    z.avail_in = static_cast<unsigned int>(piece.input.size());
    z.next_out = piece.output.data();
    z.avail_out = static_cast<unsigned int>(piece.output.size());
    int r = BZ2_bzCompress(&z, BZ_FINISH);
    piece.result = r == BZ_STREAM_END ? BZ_OK : r;
    piece.output.resize(piece.output.size() - z.avail_out);
    BZ2_bzCompressEnd(&z);
    return piece;
  }

  Result<void> submit() {
    if (jobs_.size() >= threads_) {
      TRY(write_oldest());
    }
    Piece piece;
    if (!spares_.empty()) {
      piece = std::move(spares_.back());
      spares_.pop_back();
    }
    std::swap(piece.input, piece_);  // piece_ gets the spare's emptied buffer
    jobs_.push_back(std::async(std::launch::async, compress_piece, std::move(piece), level_));
    submitted_ = true;
    piece_.reserve(piece_size_);
    return {};
  }

  Result<void> write_oldest() {
    Piece piece = jobs_.front().get();
    jobs_.pop_front();
    if (piece.result != BZ_OK) {
      return Error{"bzip2 compression failed (error " + std::to_string(piece.result) + ")"};
    }
    TRY(next_.write(piece.output.data(), piece.output.size()));
    piece.input.clear();
    spares_.push_back(std::move(piece));
    return {};
  }

  ByteSink& next_;
  int level_;
  std::size_t piece_size_;
  std::size_t threads_;
  std::vector<char> piece_;
  std::deque<std::future<Piece>> jobs_;
  std::vector<Piece> spares_;
  bool submitted_ = false;
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
  if (options.codec == Codec::bzip2) {
    int level = options.level.value_or(9);
    if (level < 1 || level > 9) {
      return Error{"--level " + std::to_string(level) + ": bzip2 levels are 1 to 9"};
    }
    return std::unique_ptr<ByteSink>(
        std::make_unique<ParallelBzip2Sink>(next, level, std::max(1, options.threads)));
  }
  int level = options.level.value_or(6);
  if (level < 1 || level > 9) {
    return Error{"--level " + std::to_string(level) + ": gzip levels are 1 to 9"};
  }
  if (options.threads > 1) {
    return std::unique_ptr<ByteSink>(
        std::make_unique<ParallelGzipSink>(next, level, options.threads));
  }
  return std::unique_ptr<ByteSink>(std::make_unique<GzipSink>(next, level));
}

}  // namespace pdx
