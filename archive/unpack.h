#pragma once
// unpack: an archive, or the parts of one read in order as one stream, into a directory --
// refusing anything that would write outside it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "archive/entry_failure.h"
#include "archive/part_reader.h"
#include "base/result.h"

namespace pdx {

/// Whose files unpack makes when run as root.
enum class Ownership {
  as_archive_when_root,  // root restores the archive's owners, set-id bits and device files
  mine,  // GNU tar's --no-same-owner, for archives from hosts not trusted (pull): the files are
         // the user's, root's too, with no set-user/group-ID bits, and device files are refused
};

struct UnpackOptions {
  std::vector<std::string> parts;  // in stream order (archive/part_name.h resolve_parts)
  /// How far the parts are checked against a set file beside them: SetCheck::sizes when they
  /// were checked against a manifest (unpack --verify).
  SetCheck set_check = SetCheck::contents;
  std::string directory = ".";  // created if missing
  int strip_components = 0;     // leading path components dropped from every name
  Ownership ownership = Ownership::as_archive_when_root;
  /// Called with each entry's name as it is extracted (-v).
  std::function<void(const std::string&)> on_entry;
  /// Called for what does not stop unpacking (a malformed but readable header, say).
  std::function<void(const std::string&)> on_warning;
  /// Called, before unpack returns its Error, when that Error is an entry's that could not be
  /// created, written or put in place.
  std::function<void(const EntryFailure&)> on_entry_failure;
  /// Called now and then with the stream bytes read so far and their total (0 if unknown).
  std::function<void(std::uint64_t, std::uint64_t)> on_progress;
};

struct UnpackStats {
  std::uint64_t entries = 0;
  std::uint64_t files = 0;       // regular files written, a hard link not counted again
  std::uint64_t file_bytes = 0;  // their sizes added up
};

/// Extracts the stream into options.directory. The format is detected from the content.
/// Permissions and modification times are kept; ownership only when run as root.
///
/// Safety: an entry whose name (or hard-link target) is absolute or holds "..", that would be
/// written through a symlink, or (unless root) is a device file, stops the run with an Error
/// naming it. A regular file is written with no name (O_TMPFILE) or under a temporary one in its
/// directory, and given its name when complete (archive/unpack_file.h), so a failed run never
/// leaves a half-written file under a final name.
///
/// Regular files up to 1 MiB are read into memory and written by threads, one per core
/// (archive/unpack_writers.h), while reading goes on; the archive's order still decides: a
/// link, device or fifo waits until every file before it is written, and a directory, or a
/// file, whose name or a name above it is still being written, waits too. The first failure of
/// a thread stops the run.
/// A read or decode error names the part the stream was in.
///
/// Changes the process's working directory to options.directory for the call (libarchive's
/// safety checks work on relative names); not for use from several threads at once.
Result<UnpackStats> unpack(const UnpackOptions& options);

/// The name an entry is extracted under: `name` without its first `strip` components, or "" if
/// nothing is left (the entry is skipped). An absolute name or one with a ".." component is an
/// Error.
Result<std::string> safe_entry_name(const std::string& name, int strip);

}  // namespace pdx
