#pragma once
// Decompresses gzip, zstd, bzip2 and xz streams for unpack, checking what the formats carry:
// gzip's CRC-32 and length, zstd's content checksum when the frame has one (libarchive 3.6
// checks neither, so without this a corrupt part could unpack into silently wrong files),
// bzip2's block and stream CRCs, xz's block checks. Decoding here rather than in libarchive
// also lets unpack decode on a thread of its own (unpack_input.h).
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "archive/part_reader.h"
#include "base/result.h"

namespace pdx {

class StreamDecoder {
 public:
  explicit StreamDecoder(PartReader& in);
  ~StreamDecoder();
  StreamDecoder(const StreamDecoder&) = delete;
  StreamDecoder& operator=(const StreamDecoder&) = delete;

  /// Looks at the first bytes to tell gzip (any number of members), zstd (frames), bzip2 and
  /// xz (streams) from anything else, which is passed through as it is; for that, reads on to
  /// kForeignFormatHead bytes (archive/foreign_format.h) or the end.
  Result<void> open();
  /// The first bytes of the stream, undecoded (all of kForeignFormatHead when passed through);
  /// between open() and the first read().
  std::span<const char> head() const { return {input_.data(), input_end_}; }
  /// True when the stream is passed through undecoded (so the parts may be seeked directly).
  bool passthrough() const { return codec_ == nullptr; }
  /// Up to size decoded bytes; 0 at the end. A corrupt or truncated stream is an Error
  /// (ErrorKind::bad_input) naming the part it was in.
  Result<std::size_t> read(void* buffer, std::size_t size);

  /// The decoding state of one format (defined in decoder.cpp).
  struct Codec;

 private:
  Result<bool> fill();  // more input; false at the end of the parts

  PartReader& in_;
  std::unique_ptr<Codec> codec_;
  // The undecoded bytes held are input_[input_pos_, input_end_); the buffer only grows, never
  // zero-filled again: a read from a pipe brings 64 KiB or so, and zeroing the 1 MiB asked for
  // each time was a tenth of an agent's CPU in push --extract.
  std::vector<char> input_;
  std::size_t input_pos_ = 0;
  std::size_t input_end_ = 0;
  bool at_end_ = false;
};

}  // namespace pdx
