#pragma once
// pack: files and directories into one archive stream (tar in pax form, compressed, or zip),
// written to a ByteSink -- one file, stdout, or parts (archive/split_writer.h).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "archive/byte_sink.h"
#include "archive/format.h"
#include "base/result.h"

namespace pdx {

/// What the sources hold, found by walking them before packing: for the parts' suffix width
/// and the progress estimate.
struct SourceSize {
  std::uint64_t entries = 0;
  std::uint64_t file_bytes = 0;
  /// An upper bound of the uncompressed tar stream's size (headers, padding, end blocks).
  std::uint64_t tar_bytes = 0;
  /// An upper bound of any archive of them: the tar stream plus what a compressor (or zip's
  /// headers) can add to data that does not compress.
  std::uint64_t archive_bound() const { return tar_bytes + tar_bytes / 64 + (1 << 20); }
};

/// Walks the sources (without following symlinks). A source that does not exist is an Error.
Result<SourceSize> measure_sources(const std::vector<std::string>& sources);

struct PackOptions {
  std::vector<std::string> sources;
  /// The name each source is stored under (by index), what is under it below that name; empty:
  /// as tar stores them. Nothing is removed from these, and no warning said.
  std::vector<std::string> names;
  /// Called with each name about to be stored: the name it is stored under instead.
  std::function<std::string(const std::string&)> rename;
  /// The archive's path, so that it (its parts, their temporary files) is never packed into
  /// itself when it lies inside a source; "" or "-" when it is no file.
  std::string output;
  Format format = Format::tar;
  std::optional<int> level;  // the compressor's own scale; nullopt: its default
  int threads = 1;           // compression threads for zstd and xz
  /// Called with each entry's name as it is stored (-v).
  std::function<void(const std::string&)> on_entry;
  /// Called for what does not stop packing ("removing leading '/'", "file changed").
  std::function<void(const std::string&)> on_warning;
  /// Set: a file or directory that cannot be read does not stop packing either (as with GNU
  /// tar): it is called with the error naming it, and what cannot be read is left out (a
  /// directory that cannot be listed with all below it; a file whose read fails midway keeps
  /// its size, padded with zeros). Unset: that error ends packing.
  std::function<void(const std::string&)> on_unreadable;
  /// Called now and then with the file bytes read so far and the bytes written.
  std::function<void(std::uint64_t, std::uint64_t)> on_progress;
};

struct PackStats {
  std::uint64_t files = 0;       // regular files stored, a hard link not counted again
  std::uint64_t file_bytes = 0;  // their sizes added up
  std::uint64_t bytes_out = 0;   // archive bytes written
  /// Files stored other than as they were when packing began (they changed while read), or
  /// not stored at all (a type the format cannot hold); each was reported by on_warning.
  std::uint64_t incomplete = 0;
  /// Files and directories left out, whole or in part, for on_unreadable.
  std::uint64_t unreadable = 0;
};

/// Writes the archive of options.sources to sink and finishes it. Entries are stored under the
/// names given, as tar does: a leading '/' and leading '../' are removed. An unreadable source
/// file is an Error naming it (unless on_unreadable is set); the sink is then left unfinished
/// (nothing under the final name).
Result<PackStats> pack(const PackOptions& options, ByteSink& sink);

}  // namespace pdx
