#pragma once
// What verify_command prints on a host, read back as untrusted input: NUL-ended records of
// bounded length, sizes that are numbers, hashes that are 64 hex digits, names that are
// relative and hold no "." or ".." component. Anything else ends the host's listing with an
// Error.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace pdx {

struct ListingRecord {
  enum class Kind { size, hash } kind = Kind::size;
  std::string_view name;    // relative to the directory listed
  std::uint64_t size = 0;   // Kind::size
  std::string_view sha256;  // Kind::hash: 64 lower-case hex digits
};

/// One record without its NUL: "s SIZE NAME" or "SHA256  ./NAME".
Result<ListingRecord> parse_listing_record(std::string_view record);

class ListingParser {
 public:
  /// Longest record taken: a name of PATH_MAX and its size or hash.
  static constexpr std::size_t kMaxRecord = 4096 + 80;

  /// Parses what arrived, handing each complete record to `on_record` (its views valid for the
  /// call). After an Error, takes nothing more.
  Result<void> feed(std::string_view bytes,
                    const std::function<void(const ListingRecord&)>& on_record);
  /// At the end of the output: an Error if it stopped inside a record.
  Result<void> end() const;

 private:
  std::string pending_;  // the start of a record whose NUL has not come yet
  bool failed_ = false;
};

}  // namespace pdx
