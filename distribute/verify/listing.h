#pragma once
// What verify lists on a host, read back as untrusted input, as records of a file's size and of
// its digest:
//  - ListingParser: verify_command's output (the host's find and sha256sum): NUL-ended records
//    of bounded length, sizes that are numbers, hashes that are 64 hex digits, names that are
//    relative and hold no "." or ".." component, a symlink's target (its record after its name)
//    not empty;
//  - AgentListingParser: `pdx agent --list=DIR --under=. [--checksum]`'s frames
//    (agent/agent_protocol.h): entries, each checked as decode_entry does, then a summary.
// Anything else ends the host's listing with an Error.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "agent/agent_protocol.h"
#include "base/result.h"

namespace pdx {

struct ListingRecord {
  enum class Kind { size, hash, link } kind = Kind::size;
  std::string_view name;      // relative to the directory listed
  std::uint64_t size = 0;     // Kind::size
  std::string_view digest;    // Kind::hash: lower-case hex, SHA-256 (64 digits) from
                              // ListingParser, XXH3-128 (32) or "" (unreadable) from the agent
  std::string_view target{};  // Kind::link: a symlink's (the agent's listing only)
};

using OnRecord = std::function<void(const ListingRecord&)>;

/// One record without its NUL: "s SIZE NAME", "SHA256  ./NAME" or "l NAME" (a symlink, whose
/// target is the next record).
Result<ListingRecord> parse_listing_record(std::string_view record);

class ListingParser {
 public:
  /// Longest record taken: a name of PATH_MAX and its size or hash.
  static constexpr std::size_t kMaxRecord = 4096 + 80;

  /// Parses what arrived, handing each complete record to `on_record` (its views valid for the
  /// call). After an Error, takes nothing more.
  Result<void> feed(std::string_view bytes, const OnRecord& on_record);
  /// At the end of the output: an Error if it stopped inside a record.
  Result<void> end() const;

 private:
  std::string pending_;  // the start of a record whose NUL has not come yet
  std::string link_;     // the name of the symlink whose target is the next record
  bool in_link_ = false;
  bool failed_ = false;
};

class AgentListingParser {
 public:
  /// As ListingParser::feed: each regular file's entry is a size record, then with `hashed` a
  /// hash record; a symlink's a link record; directories and others are left out. The first entry
  /// (the listed path itself) is only kept for top().
  explicit AgentListingParser(bool hashed) : hashed_(hashed) {}
  Result<void> feed(std::string_view bytes, const OnRecord& on_record);
  /// At the end of the output: an Error unless it ended with its summary.
  Result<void> end() const;
  /// What the listed path is on the host (EntryKind::missing: nothing there, or not listed).
  EntryKind top() const { return top_; }

 private:
  Result<void> take(const Frame& frame, const OnRecord& on_record);

  bool hashed_;
  FrameDecoder decoder_;
  bool first_ = true, summary_ = false, failed_ = false;
  EntryKind top_ = EntryKind::missing;
};

}  // namespace pdx
