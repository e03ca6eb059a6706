#include "distribute/verify/listing.h"

#include <charconv>

#include "distribute/host_outcome.h"

namespace pdx {

namespace {

Error malformed(std::string_view record, const std::string& why) {
  return Error{"malformed listing from the host (" + why + "): " + printable(record.substr(0, 80))};
}

Error malformed_frames(const std::string& why) {
  return Error{"malformed listing from the agent (" + why + ")"};
}

bool safe_name(std::string_view name) {
  if (name.empty() || name.front() == '/') return false;
  for (std::size_t start = 0; start <= name.size();) {
    std::size_t end = std::min(name.find('/', start), name.size());
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

bool hex_digest(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

Result<ListingRecord> parse_listing_record(std::string_view record) {
  ListingRecord r;
  if (record.starts_with("l ")) {
    r.kind = ListingRecord::Kind::link;
    r.name = record.substr(2);
  } else if (record.starts_with("s ")) {
    std::string_view rest = record.substr(2);
    std::size_t space = rest.find(' ');
    if (space == std::string_view::npos || space == 0) return malformed(record, "no size");
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + space, r.size);
    if (ec != std::errc{} || end != rest.data() + space) return malformed(record, "bad size");
    r.name = rest.substr(space + 1);
  } else {
    r.kind = ListingRecord::Kind::hash;
    r.digest = record.substr(0, 64);
    if (!hex_digest(r.digest) || record.substr(64, 4) != "  ./")
      return malformed(record, "not a size or a hash");
    r.name = record.substr(68);
  }
  if (!safe_name(r.name)) return malformed(record, "unsafe name");
  return r;
}

Result<void> ListingParser::feed(std::string_view bytes, const OnRecord& on_record) {
  if (failed_) return {};
  while (!bytes.empty()) {
    std::size_t nul = bytes.find('\0');
    std::size_t take = nul == std::string_view::npos ? bytes.size() : nul;
    if (pending_.size() + take > kMaxRecord) {
      failed_ = true;
      return malformed(pending_, "a record over " + std::to_string(kMaxRecord) + " bytes");
    }
    if (nul == std::string_view::npos) {
      pending_.append(bytes);
      return {};
    }
    std::string_view record = bytes.substr(0, nul);
    if (!pending_.empty()) {
      pending_.append(record);
      record = pending_;
    }
    if (in_link_) {  // the target of the symlink named by the record before
      if (!check_target(record)) {
        failed_ = true;
        return malformed(record, "a bad symlink target");
      }
      in_link_ = false;
      on_record({ListingRecord::Kind::link, link_, 0, {}, record});
      pending_.clear();
      bytes.remove_prefix(nul + 1);
      continue;
    }
    auto parsed = parse_listing_record(record);
    if (!parsed) {
      failed_ = true;
      return Error{parsed.error()};
    }
    if (parsed->kind == ListingRecord::Kind::link) {
      link_ = std::string(parsed->name);
      in_link_ = true;
    } else {
      on_record(*parsed);
    }
    pending_.clear();
    bytes.remove_prefix(nul + 1);
  }
  return {};
}

Result<void> ListingParser::end() const {
  if (!failed_ && (!pending_.empty() || in_link_))
    return malformed(pending_, "ends inside a record");
  return {};
}

Result<void> AgentListingParser::feed(std::string_view bytes, const OnRecord& on_record) {
  if (failed_) return {};
  decoder_.feed(bytes);
  for (;;) {
    auto frame = decoder_.next();
    Result<void> taken;
    if (!frame)
      taken = malformed_frames(frame.error());
    else if (!*frame)
      return {};
    else
      taken = take(**frame, on_record);
    if (!taken) {
      failed_ = true;
      return taken;
    }
  }
}

Result<void> AgentListingParser::take(const Frame& frame, const OnRecord& on_record) {
  if (summary_) return malformed_frames("bytes after its end");
  if (frame.type == FrameType::summary) {
    if (!decode_summary(frame.payload)) return malformed_frames("a bad summary");
    summary_ = true;
    return {};
  }
  if (frame.type != FrameType::entry) return malformed_frames("a frame not of a listing");
  auto entry = decode_entry(frame.payload);
  if (!entry) return malformed_frames(entry.error());
  if (first_ != entry->name.empty()) return malformed_frames("out of order");
  if (first_) {
    first_ = false;
    top_ = entry->kind;
    return {};
  }
  if (entry->kind == EntryKind::symlink)
    on_record({ListingRecord::Kind::link, entry->name, 0, {}, entry->target});
  if (entry->kind != EntryKind::file) return {};
  on_record({ListingRecord::Kind::size, entry->name, entry->size, {}});
  if (hashed_) on_record({ListingRecord::Kind::hash, entry->name, 0, entry->digest});
  return {};
}

Result<void> AgentListingParser::end() const {
  if (!failed_ && (!summary_ || decoder_.partial())) return malformed_frames("cut short");
  return {};
}

}  // namespace pdx
