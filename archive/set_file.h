#pragma once
// The set file: what ties the parts of a split archive that carry nothing themselves to their
// set. Parts of tar, tar.xz, tar.bz2 and zip archives, and whatever pdx split cuts, have no
// element the standard tools would skip (`cat parts | tar -x` reads every byte), so pack --split
// and split write their set's pack id and each part's name, size and XXH3-128 in a small file
// beside them, BASE-set (archive/part_name.h), and PartReader::check() checks the parts against
// it before a byte is unpacked. A text file:
//
//   pdx-set 1
//   id 5e1f09ab0c4d7a21...                                   (the pack's random 128-bit id)
//   part 104857600 6c1b0e...(32 hex digits) data.tar.xz.part-0
//   part 3145728 0f3a4d... data.tar.xz.part-1
//   end 2
//
// Names are file names without a directory: the set file lies beside its parts.
#include <cstdint>
#include <string>
#include <vector>

#include "archive/part_header.h"
#include "base/result.h"

namespace pdx {

struct SetFile {
  struct Part {
    std::string name;
    std::uint64_t size = 0;
    std::string xxh3;  // 32 lower-case hex digits (hash/xxh3.h)
  };
  PackId id{};
  std::vector<Part> parts;
};

std::string encode_set_file(const SetFile& set);

/// Reads the set file at path. One that cannot be read, is not a set file, is malformed or cut
/// short, or is over 16 MiB (some 100,000 parts), is an Error naming it and the line
/// (ErrorKind::bad_input). Nothing is allocated from what it says.
Result<SetFile> read_set_file(const std::string& path);

}  // namespace pdx
