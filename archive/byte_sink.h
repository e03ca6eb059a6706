#pragma once
// Where the bytes of an archive go: one file, stdout, or a set of parts (archive/split_writer.h).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "archive/part_header.h"
#include "base/result.h"

namespace pdx {

/// A file an output ended up as, for reports and manifests.
struct WrittenFile {
  std::string name;
  std::uint64_t size = 0;
  std::string sha256;  // hex, when Checksum::sha256 was asked for
};

/// Whether outputs hash what they write (for a manifest).
enum class Checksum { none, sha256 };

/// Receives an output stream in order. finish() makes it appear under its final name(s);
/// a sink destroyed before finish() leaves nothing behind under any final name.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Result<void> write(const void* data, std::size_t size) = 0;
  virtual Result<void> finish() = 0;
  /// The files written, complete after finish().
  virtual std::vector<WrittenFile> files() const = 0;
  /// Bytes that reached the output so far.
  virtual std::uint64_t written() const = 0;

  /// For a sink cut into framed parts (archive/part_header.h), whose compressor must end its
  /// frame or member where a part ends: the bytes the current part has room for (the part is
  /// begun if it was not). std::nullopt for any other sink, which takes any number of bytes. An
  /// Error if the part cannot be begun.
  virtual Result<std::optional<std::uint64_t>> part_room() {
    return std::optional<std::uint64_t>();
  }
  /// Ends the current framed part; the next write begins the next one.
  virtual Result<void> end_part() { return {}; }
};

/// What may happen to files already under the output's names.
enum class Overwrite { no, yes };

/// Where an output goes: `path` itself ("-" for stdout), or parts path.part-N of `part_size`
/// bytes with suffixes `suffix_width` digits wide.
struct OutputSpec {
  std::string path;
  std::optional<std::uint64_t> part_size;
  int suffix_width = 1;
  Overwrite overwrite = Overwrite::no;
  Checksum checksum = Checksum::none;
  PartFraming framing = PartFraming::none;  // with part_size: what begins each part
};

/// Opens the sink for spec. Without Overwrite::yes, an existing output file (or any existing
/// part path.part-N) is an Error, so nothing is ever overwritten silently.
Result<std::unique_ptr<ByteSink>> open_output(const OutputSpec& spec);

}  // namespace pdx
