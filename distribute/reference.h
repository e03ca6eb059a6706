#pragma once
// What verify compares each host's listing with: a directory here (--against: every regular
// file's name and size, and with --hash its SHA-256), or a manifest of pdx pack (-m: only the
// file count and bytes it holds).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"

namespace pdx {

struct Reference {
  struct File {
    std::string name;  // relative, '/'-separated
    std::uint64_t size = 0;
    std::string sha256;  // empty unless hashed
  };
  std::vector<File> files;                             // sorted by name; empty for a manifest
  std::unordered_map<std::string, std::size_t> index;  // name -> position in files
  bool has_names = true;                               // false: counts only (a manifest)
  bool has_hashes = false;
  std::uint64_t file_count = 0;
  std::uint64_t bytes = 0;

  /// The file of that name, or nullptr.
  const File* find(std::string_view name) const;
};

/// Every regular file under dir (symlinks not followed, as find -type f), hashed on all cores
/// when `hash`. An Error names the file that cannot be read; a missing dir is bad_input.
Result<Reference> local_reference(const std::string& dir, bool hash);

/// The counts of a manifest (archive/manifest.h).
Result<Reference> manifest_reference(const std::string& path);

}  // namespace pdx
