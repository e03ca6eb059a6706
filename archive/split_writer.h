#pragma once
// Writes one stream as parts of a fixed size while it streams: no temporary whole file and no
// second pass. Each part is written under a temporary name and renamed when it is full (or the
// stream ends), so a part under its final name is always complete.
#include <optional>

#include "archive/byte_sink.h"
#include "archive/part_name.h"
#include "archive/sha256.h"
#include "archive/temp_file.h"

namespace pdx {

class SplitWriter : public ByteSink {
 public:
  /// Parts are named by naming; each but the last holds exactly part_size bytes. With
  /// Overwrite::yes, finish() also removes older parts numbered past the new last one.
  SplitWriter(PartNaming naming, std::uint64_t part_size, Overwrite overwrite,
              Checksum checksum = Checksum::none);
  /// Removes the parts this writer renamed into place unless finish() succeeded.
  ~SplitWriter() override;

  /// Fails, naming the part, if the stream needs more parts than naming's width can number.
  Result<void> write(const void* data, std::size_t size) override;
  Result<void> finish() override;
  std::vector<WrittenFile> files() const override { return done_; }
  std::uint64_t written() const override { return written_; }

 private:
  Result<void> open_next_part();
  Result<void> close_part();

  PartNaming naming_;
  std::uint64_t part_size_;
  Overwrite overwrite_;
  Checksum checksum_;
  std::optional<TempFile> current_;
  std::optional<Sha256> hash_;  // of the current part
  std::uint64_t current_size_ = 0;
  std::uint64_t written_ = 0;
  std::vector<WrittenFile> done_;
  bool finished_ = false;
};

}  // namespace pdx
