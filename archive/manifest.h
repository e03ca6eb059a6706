#pragma once
// A manifest of a packed archive: what it holds (file count, bytes) and each part's size and
// SHA-256, for unpack --verify and the distribution commands to check against.
//
// It is a text file that sha256sum -c also checks (it skips the '#' lines):
//
//   # pdx manifest 1
//   # format tar.zst
//   # files 1234
//   # bytes 567890123
//   # part 2097152000 data.tar.zst.part-0
//   3a7bd3e2...  data.tar.zst.part-0
//
// Part names are relative to the manifest's directory (they sit side by side).
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

struct Manifest {
  struct Part {
    std::string name;
    std::uint64_t size = 0;
    std::string sha256;  // 64 hex digits
  };
  std::string format;
  std::uint64_t files = 0;  // regular files, a hard link not counted again
  std::uint64_t bytes = 0;  // their sizes added up
  std::vector<Part> parts;
};

/// Writes the manifest under a temporary name and renames it into place.
Result<void> write_manifest(const std::string& path, const Manifest& manifest);

/// Reads a manifest; a malformed one is an Error naming the line.
Result<Manifest> read_manifest(const std::string& path);

/// Checks the files to be read against the manifest's parts: the same number, names, sizes and
/// SHA-256 hashes, in order. An Error names the first part that differs and how
/// (ErrorKind::bad_input; a part that cannot be read is a failure). Reads every part: unpack
/// --verify and push --extract -m run it before anything is unpacked or sent.
Result<void> verify_parts(const Manifest& manifest, const std::vector<std::string>& parts);

}  // namespace pdx
