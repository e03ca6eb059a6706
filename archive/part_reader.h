#pragma once
// Reads a list of files (the parts of a split archive) as one stream, in order, without
// concatenating them first. It knows which part the stream is in, so a read or decode error
// can name the part to look at.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "archive/part_header.h"
#include "archive/set_file.h"
#include "base/result.h"

namespace pdx {

/// How far check() looks into parts that a set file lists (archive/set_file.h).
enum class SetCheck {
  contents,  // their names, sizes and XXH3-128s: every part is read once before the stream
  sizes,     // their names and sizes: the caller has checked their contents otherwise (against a
             // manifest), or has just checked them
};

class PartReader {
 public:
  /// parts in stream order; "-" is standard input.
  explicit PartReader(std::vector<std::string> parts);
  ~PartReader();
  PartReader(const PartReader&) = delete;
  PartReader& operator=(const PartReader&) = delete;

  /// Checks every part exists and is readable before the first byte is read, so a missing part
  /// fails before anything is written (an Error of ErrorKind::bad_input). Learns the part sizes
  /// (for seeking and progress) and their absolute paths, so the caller may change directory
  /// afterwards.
  ///
  /// Parts of a framed set (tar.zst, tar.gz: archive/part_header.h) are also checked as a set,
  /// one small read each: the same pack id throughout, indexes in order with none missing, each
  /// part as long as its header says, the last part last. A foreign, missing, misordered or
  /// truncated part is an Error naming it. (Not when a part is a pipe.)
  ///
  /// Parts of another set, whose set file BASE-set lies beside the first (BASE.part-N), are
  /// checked against it: every part it lists given, in its order, none more, each of its size
  /// and (SetCheck::contents) XXH3-128. A set file that cannot be read or is malformed is an
  /// Error naming it.
  Result<void> check(SetCheck how = SetCheck::contents);
  /// After a check() that found a framed set whole, or the contents of the parts its set file
  /// lists: its pack id.
  const std::optional<PackId>& pack_id() const { return pack_id_; }
  /// As check() without the set check: for reading one part on its own (hashing it).
  Result<void> check_files();
  /// Up to size bytes of the stream; 0 at the end of the last part.
  Result<std::size_t> read(void* buffer, std::size_t size);
  /// The part the last read came from.
  const std::string& current_part() const { return parts_[index_].name; }
  /// Sum of the part sizes, 0 when a part is a pipe.
  std::uint64_t total_size() const;
  /// Bytes of the stream consumed so far.
  std::uint64_t position() const { return position_; }

  /// True when every part is a regular file, so that seek() works.
  bool seekable() const;
  /// Moves to an offset of the whole stream (whence as for lseek); returns the new offset.
  Result<std::uint64_t> seek(std::int64_t offset, int whence);

 private:
  struct Part {
    std::string name;  // as given, for messages
    std::string path;  // absolute
    std::uint64_t size = 0;
    bool regular = false;
  };
  Result<void> open_part(std::size_t index);
  Result<void> check_set(SetCheck how);
  /// Parts with no part header: against their set file, if there is one.
  Result<void> check_unframed(SetCheck how);
  Result<void> check_listed(const SetFile& set, const std::string& set_path, SetCheck how);
  /// The part header at offset `at` of the parts read as one stream, if one is there.
  Result<std::optional<PartHeader>> header_at(std::uint64_t at) const;
  /// The file holding offset `at` of the stream, and the offset in it.
  std::pair<std::size_t, std::uint64_t> locate(std::uint64_t at) const;

  std::vector<Part> parts_;
  std::size_t index_ = 0;
  int fd_ = -1;
  std::uint64_t position_ = 0;
  std::optional<PackId> pack_id_;
};

}  // namespace pdx
