#pragma once
// One host's listing for pdx verify, added up record by record as it arrives
// (distribute/verify/listing.h), so that memory grows with the reference, not with what the host
// sends.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "distribute/host_outcome.h"
#include "distribute/verify/listing.h"
#include "distribute/verify/reference.h"
#include "hash/hash_files.h"

namespace pdx {

/// Counts, an order-free digest of every record, and, against a reference with names, what is
/// missing, extra or changed (a symlink by its target; a file where a symlink is, or the other
/// way, is changed).
class HostTally {
 public:
  /// `reference` may be null (compare hosts with each other); it outlives the tally. `kind`: the
  /// digest the host's hash records hold, compared with the reference's of that kind.
  explicit HostTally(const Reference* reference, FileDigest kind = FileDigest::xxh3);
  void add(const ListingRecord& record);
  /// "match: 3 files, 1.0 KiB" / "differs: 1 missing (a), 2 changed (b, c)" against the
  /// reference; without one "3 files, 1.0 KiB, listing 0123abcd" (status 0). Its figures:
  /// files, bytes, result (match / differs; not without a reference: verify() decides), and
  /// against names missing, extra, changed with the first names of each, as they came.
  HostOutcome outcome() const;

 private:
  static constexpr std::size_t kNamesShown = 3;
  const Reference* reference_;
  FileDigest kind_;
  std::uint64_t files_ = 0, bytes_ = 0, links_ = 0;
  std::uint64_t digest_ = 0;
  std::vector<bool> seen_, changed_;  // by reference file
  std::uint64_t extra_ = 0;
  std::vector<std::string> extra_names_;  // the first few, as the host sent them
};

}  // namespace pdx
