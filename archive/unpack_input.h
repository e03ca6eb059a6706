#pragma once
// The stream unpack reads: the parts in order, decoded (gzip, zstd) by StreamDecoder. Decoding
// runs on a thread of its own, a few blocks ahead of the reader -- as GNU tar's gzip or zstd
// child does -- so that it overlaps with writing the files out. An undecoded stream is read
// on the caller's thread, and can seek.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "archive/part_reader.h"
#include "base/result.h"

namespace pdx {

class UnpackInput {
 public:
  /// parts in stream order, as for PartReader.
  explicit UnpackInput(std::vector<std::string> parts);
  /// Stops the decoding thread: joined when the parts are regular files; else left to end by
  /// itself (it owns what it uses), since a read from a pipe may not return soon.
  ~UnpackInput();
  UnpackInput(const UnpackInput&) = delete;
  UnpackInput& operator=(const UnpackInput&) = delete;

  /// Checks the parts (PartReader::check, as `how` says), tells the format from the first bytes
  /// (StreamDecoder::open), refuses one pdx does not read (archive/foreign_format.h; read()
  /// checks the first decoded bytes the same way) and starts decoding. The caller may change
  /// directory afterwards.
  Result<void> open(SetCheck how = SetCheck::contents);
  /// The next block of the stream, valid until the next call; empty at the end. An Error names
  /// the part; the blocks before it are delivered first.
  Result<std::span<const char>> read();
  /// The decode error the blocks read ahead end with, if any: waits until the decoding thread
  /// stops (at the end, at an error, or with every buffer full). For when the bytes read() gave
  /// make no sense: a corrupt block decodes into garbage before its check fails.
  std::optional<Error> pending_error() const;
  /// True when the stream is undecoded and every part a regular file, so that seek() works.
  bool seekable() const;
  /// Moves to an offset of the (undecoded) stream, whence as for lseek; returns the new offset.
  Result<std::uint64_t> seek(std::int64_t offset, int whence);

  /// The part the last block came from.
  const std::string& current_part() const;
  /// Bytes of the parts read up to the last block (decoding reads ahead of it).
  std::uint64_t position() const;
  /// Sum of the part sizes, 0 when a part is a pipe.
  std::uint64_t total_size() const;

  /// What the decoding thread and the reader share (defined in unpack_input.cpp).
  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
  std::thread decoding_;
};

}  // namespace pdx
