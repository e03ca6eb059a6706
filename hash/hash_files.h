#pragma once
// Digests of files on disk, many at once: what verify --hash, push --checksum and the agent's
// listing compare. Each file is read through one fixed buffer per thread, never whole.
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

/// Which digest: XXH3-128 (32 hex digits, hash/xxh3.h) where both ends are pdx, SHA-256 (64
/// hex digits, as sha256sum prints it) where the other end is a host's own sha256sum.
enum class FileDigest { xxh3, sha256 };

/// The digest (lower-case hex) of the file at `path`. An Error names it.
Result<std::string> hash_file(const std::string& path, FileDigest digest);

struct FileHash {
  std::string digest;  // empty when the file could not be read
  std::string error;   // then why, naming the file
};

/// hash_file of every path, as many at once as there are cores; result i is paths[i]'s.
std::vector<FileHash> hash_files(const std::vector<std::string>& paths, FileDigest digest);

}  // namespace pdx
