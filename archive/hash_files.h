#pragma once
// SHA-256 of files on disk, many at once: what verify --hash, push --checksum and the agent's
// listing compare. Each file is read through one fixed buffer per thread, never whole.
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

/// The SHA-256 (64 lower-case hex digits) of the file at `path`. An Error names it.
Result<std::string> hash_file(const std::string& path);

struct FileHash {
  std::string sha256;  // empty when the file could not be read
  std::string error;   // then why, naming the file
};

/// hash_file of every path, as many at once as there are cores; result i is paths[i]'s.
std::vector<FileHash> hash_files(const std::vector<std::string>& paths);

}  // namespace pdx
