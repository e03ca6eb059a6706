#pragma once
// What a host's agent remembers of a `push --extract` it placed whole, so that the same set pushed
// again to the same DEST is found up to date (runs on the host). One record per DEST, in
// ~/.cache/pdx/extracted/<SHA-256 of DEST, absolute>: the set's identity (what pdx passes as
// --set), DEST, the names the archive placed, and a digest of what they were right after: type
// and mode of each, and for all but directories its size, mtime, ctime and inode (a directory's
// change with what else is put in it). The record alone is never trusted: it holds only when
// every name is still as it was.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace pdx {

/// A set identity as pdx sends it: 1 to 128 of [0-9a-z-].
bool valid_set_id(std::string_view set);

struct ExtractRecord {
  std::string set;
  std::string dest;                // absolute
  std::vector<std::string> names;  // relative to dest, as placed
  std::string digest;              // entries_digest of the names then
};

std::string encode_record(const ExtractRecord& record);
/// An Error for anything but a record as encode_record wrote it (the file may be damaged).
Result<ExtractRecord> decode_record(std::string_view bytes);

/// The digest of what `names` are under `dest` now (lstat'ed, never followed); nullopt when one is
/// missing.
std::optional<std::string> entries_digest(const std::string& dest,
                                          const std::vector<std::string>& names);

/// Where the record of `dest` (absolute, normalized) is kept; "" when HOME is not set. The
/// functions below take DEST as given, relative to the working directory or not.
std::string extract_record_path(const std::string& dest);

/// After a clean unpack: records that `dest` holds `set` as `names` (placed there). An Error
/// when the record cannot be written (it is then not there: the set will be sent again).
Result<void> record_extracted(const std::string& dest, const std::string& set,
                              std::vector<std::string> names);

/// Whether `dest` holds `set` as recorded: the record names it, and each name is as it was.
bool holds_extracted(const std::string& dest, const std::string& set);

/// DEST's record removed: before anything there changes.
void forget_extracted(const std::string& dest);

}  // namespace pdx
