#pragma once
// Writes one stream as parts of at most a fixed size while it streams: no temporary whole file
// and no second pass. Every part is written under a temporary name; finish() renames the whole
// set into place (over an older set, with --force) only once it is complete, so an interrupted
// pack leaves the older set.
//
// Framed (PartFraming::zstd or gzip), each part begins with a part header (archive/part_header.h)
// and ends where the compressor in front ends a frame or member (ByteSink::part_room/end_part);
// the header's length and last flag are written in when the part is closed. Unframed, the
// stream is cut every part_size bytes, as split(1) cuts it, each part hashed (XXH3-128) as it is
// written, and the set file listing them (archive/set_file.h) is written beside them.
//
// finish() puts the set in place in this order: the set file (unframed; framed, an older set
// file is removed), then the older parts numbered past the new last one are removed
// (Overwrite::yes), then the parts are renamed. Killed (SIGKILL) before the first step, the older
// set is there, whole; after the last, the new one; in between (a few renames), the new set file
// or the new parts' headers are there, and the parts still of the older set are refused by name
// (archive/part_reader.h), never read as the new set's.
#include <optional>

#include "archive/byte_sink.h"
#include "archive/part_header.h"
#include "archive/part_name.h"
#include "archive/set_file.h"
#include "archive/temp_file.h"
#include "hash/sha256.h"
#include "hash/xxh3.h"

namespace pdx {

class SplitWriter : public ByteSink {
 public:
  /// Parts are named by naming; unframed, each but the last holds exactly part_size bytes. With
  /// Overwrite::yes, finish() also removes older parts numbered past the new last one.
  SplitWriter(PartNaming naming, std::uint64_t part_size, Overwrite overwrite,
              Checksum checksum = Checksum::none, PartFraming framing = PartFraming::none);
  /// Removes the temporary parts unless finish() succeeded.
  ~SplitWriter() override;

  /// Fails, naming the part, if the stream needs more parts than naming's width can number, or
  /// (framed) if a write would not fit the current part.
  Result<void> write(const void* data, std::size_t size) override;
  Result<void> finish() override;
  std::vector<WrittenFile> files() const override { return done_; }
  std::uint64_t written() const override { return written_; }
  Result<std::optional<std::uint64_t>> part_room() override;
  Result<void> end_part() override;

  const PackId& pack_id() const { return id_; }

 private:
  Result<void> open_next_part();
  Result<void> close_part(bool last);
  /// The first step of finish(): the set file written and renamed into place, or (framed) an
  /// older one removed.
  Result<void> place_set_file();

  PartNaming naming_;
  std::uint64_t part_size_;
  Overwrite overwrite_;
  Checksum checksum_;
  PartFraming framing_;
  PackId id_;
  std::optional<TempFile> current_;
  std::optional<Sha256> hash_;      // of the current part
  std::optional<StreamHash> xxh3_;  // of the current part, unframed
  SetFile set_;                     // the parts closed, unframed
  std::uint64_t current_size_ = 0;
  std::uint64_t written_ = 0;
  std::vector<TempFile> closed_;  // complete, under temporary names until finish()
  std::vector<WrittenFile> done_;
};

}  // namespace pdx
