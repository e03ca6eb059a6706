#pragma once
// How the parts of a split archive are named, and how a command line names them back.
//
// Parts are BASE.part-N, N decimal from 0, zero-padded to one width for the whole set so that a
// shell glob (BASE.part-*) lists them in order -- the names `split -d -a WIDTH - BASE.part-`
// makes. Readers also accept any PREFIX followed by digits (split -d's own naming).
//
// Beside parts that carry nothing of their set lies their set file, BASE-set (archive/set_file.h):
// outside the globs the parts are cat with (BASE.*, BASE.part-*, BASE.[0-9]*), inside BASE*, so
// that a copy of BASE* carries it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

class PartNaming {
 public:
  PartNaming(std::string base, int width) : base_(std::move(base)), width_(width) {}
  /// BASE.part-0007 for index 7 at width 4.
  std::string name(std::uint64_t index) const;
  /// How many parts the width can name (10^width).
  std::uint64_t capacity() const;
  int width() const { return width_; }
  const std::string& base() const { return base_; }
  /// BASE-set
  std::string set_file() const;

 private:
  std::string base_;
  int width_;
};

/// Digits needed to number `parts` parts from 0 (at least 1): 10 parts -> 1, 11 -> 2.
int suffix_width_for(std::uint64_t parts);

/// Whether a stream's size is known before it is written.
enum class StreamSize { exact, at_most };

/// The suffix width for parts of part_size bytes of a stream of `bytes` bytes: `requested` when
/// given, else the digits the part count needs. A requested width too narrow for an exact
/// size is an Error now, before anything is written (for a size only bounded, the split
/// writer finds out while writing).
Result<int> choose_suffix_width(std::optional<int> requested, std::uint64_t bytes, StreamSize known,
                                std::uint64_t part_size);

/// The files BASE.part-<digits> that exist now, in index order.
std::vector<std::string> existing_parts(const std::string& base);

/// The set file of the parts named BASE.part-N (in any directory): BASE-set; nullopt for a name
/// that is not BASE.part-<digits>.
std::optional<std::string> set_file_beside(const std::string& part);

/// Turns the inputs named on a command line into the files to read, in order:
///  - one existing file (or "-" for stdin): that file;
///  - one name that does not exist: the parts found on disk as NAME.part-N, or NAME followed by
///    digits (NAME is then split's prefix, e.g. "data.tar.gz.part-");
///  - one set file BASE-set: the parts BASE.part-N beside it;
///  - several files: those, in the order given, but the set file of parts among them (a glob
///    BASE* sweeps it up), which is no part.
/// Numbered parts must start at 0 and follow each other; a gap or a part out of order is an
/// Error naming the part.
Result<std::vector<std::string>> resolve_parts(const std::vector<std::string>& inputs);

}  // namespace pdx
