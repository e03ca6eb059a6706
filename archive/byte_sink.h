#pragma once
// What the bytes of an archive are written to: one file, stdout, or a set of parts
// (archive/split_writer.h); archive/open_output.h opens the one an OutputSpec names.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace pdx
