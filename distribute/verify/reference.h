#pragma once
// What verify compares each host's listing with: a directory here (--against: every regular
// file's name and size, and with --hash its digests; every symlink's name and target), or a
// manifest of pdx pack (-m: only the file count and bytes it holds).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "hash/hash_files.h"

namespace pdx {

struct Reference {
  struct File {
    std::string name;  // relative, '/'-separated
    std::uint64_t size = 0;
    std::string xxh3, sha256;  // empty unless hashed so (hash_reference)
    std::string target{};      // a symlink's; "" for a regular file

    const std::string& digest(FileDigest kind) const {
      return kind == FileDigest::xxh3 ? xxh3 : sha256;
    }
  };
  std::string dir;                                     // --against: where the files are
  std::vector<File> files;                             // sorted by name; empty for a manifest
  std::unordered_map<std::string, std::size_t> index;  // name -> position in files
  bool has_names = true;                               // false: counts only (a manifest)
  bool has_hashes = false;                             // contents compared (--hash)
  std::uint64_t file_count = 0;
  std::uint64_t bytes = 0;

  /// The file of that name, or nullptr.
  const File* find(std::string_view name) const;
};

/// Every regular file and symlink under dir (symlinks not followed), not hashed yet; with
/// `hash` the reference says contents are to be compared. A missing dir is bad_input.
Result<Reference> local_reference(const std::string& dir, bool hash);

/// Hashes every file of a local reference with `kind`, on all cores (hash/hash_files.h). An
/// Error names the first file that cannot be read.
Result<void> hash_reference(Reference& reference, FileDigest kind);

/// The counts of a manifest (archive/manifest.h).
Result<Reference> manifest_reference(const std::string& path);

}  // namespace pdx
