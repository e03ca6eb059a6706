#pragma once
// pdx verify: what every host holds under a directory, compared with a reference or, without
// one, with each other (pdx(1), pdx verify).
//
// Each host runs verify_command (distribute/remote_commands.h); its listing is parsed as it
// arrives (distribute/listing.h) into a HostTally, so memory grows with the reference, not with
// what the hosts send.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distribute/host_outcome.h"
#include "distribute/listing.h"
#include "distribute/reference.h"
#include "transport/transport.h"

namespace pdx {

class ProgressMeter;

/// One host's listing, added up: counts, an order-free digest of every record, and, against a
/// reference with names, what is missing, extra or changed.
class HostTally {
 public:
  /// `reference` may be null (compare hosts with each other); it outlives the tally.
  explicit HostTally(const Reference* reference);
  void add(const ListingRecord& record);
  /// "match: 3 files, 1.0 KiB" / "differs: 1 missing (a), 2 changed (b, c)" against the
  /// reference; without one "3 files, 1.0 KiB, listing 0123abcd" (status 0). Its figures:
  /// files, bytes, result (match / differs; not without a reference: verify() decides), and
  /// against names missing, extra, changed with the first names of each, as they came.
  HostOutcome outcome() const;

 private:
  static constexpr std::size_t kNamesShown = 3;
  const Reference* reference_;
  std::uint64_t files_ = 0, bytes_ = 0;
  std::uint64_t digest_ = 0;
  std::vector<bool> seen_, changed_;  // by reference file
  std::uint64_t extra_ = 0;
  std::vector<std::string> extra_names_;  // the first few, as the host sent them
};

struct VerifyOptions {
  std::string remote_dir;  // for messages
  const Reference* reference = nullptr;
  std::size_t fanout = 64;
  ProgressMeter* progress = nullptr;  // told of the hosts that end
};

/// Runs the jobs (their commands verify_command's); one outcome per job. Without a reference,
/// hosts whose listing is not the most common one get status 1.
std::vector<HostOutcome> verify(Transport& transport, const std::vector<Job>& jobs,
                                const VerifyOptions& options);

}  // namespace pdx
