#include "distribute/verify/host_tally.h"

#include <cstdio>
#include <functional>

#include "archive/size.h"

namespace pdx {

namespace {

// splitmix64's finaliser: spreads a record's hash so that sums of them do not cancel.
std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string counts(std::uint64_t files, std::uint64_t bytes, std::uint64_t links = 0) {
  std::string text = std::to_string(files) + (files == 1 ? " file, " : " files, ");
  if (links) text += std::to_string(links) + (links == 1 ? " symlink, " : " symlinks, ");
  return text + human_size(bytes);
}

// "2 missing (a/b, c)": the count, and the first names.
std::string names_part(std::uint64_t count, const char* what,
                       const std::vector<std::string>& names) {
  std::string text = std::to_string(count) + " " + what + " (";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + printable(names[i]);
  return text + (count > names.size() ? ", ...)" : ")");
}

// "missing":2,"missing_names":["a/b","c"]
void names_figures(JsonFields& figures, std::uint64_t count, const std::string& what,
                   const std::vector<std::string>& names) {
  figures.number(what, static_cast<std::int64_t>(count)).strings(what + "_names", names);
}

}  // namespace

HostTally::HostTally(const Reference* reference, FileDigest kind)
    : reference_(reference), kind_(kind) {
  if (reference_) {
    seen_.resize(reference_->files.size());
    changed_.resize(reference_->files.size());
  }
}

void HostTally::add(const ListingRecord& r) {
  std::hash<std::string_view> hash;
  bool is_size = r.kind == ListingRecord::Kind::size;
  bool is_link = r.kind == ListingRecord::Kind::link;
  std::uint64_t what = is_size ? r.size : hash(is_link ? r.target : r.digest);
  digest_ += mix(hash(r.name) ^ mix(what) ^ (is_size ? 1 : is_link ? 2 : 0));
  if (is_size) {
    ++files_;
    bytes_ += r.size;
  }
  if (is_link) ++links_;
  if (!reference_ || !reference_->has_names) return;
  const Reference::File* file = reference_->find(r.name);
  if (!file) {
    if (!is_size && !is_link) return;  // counted with its size record
    if (extra_++ < kNamesShown) extra_names_.emplace_back(r.name);
    return;
  }
  auto at = static_cast<std::size_t>(file - reference_->files.data());
  if (is_size || is_link) {
    seen_[at] = true;
    if (file->target != r.target || file->size != r.size) changed_[at] = true;
  } else if (reference_->has_hashes && file->target.empty() && file->digest(kind_) != r.digest) {
    changed_[at] = true;
  }
}

HostOutcome HostTally::outcome() const {
  HostOutcome o;
  o.figures.number("files", static_cast<std::int64_t>(files_))
      .number("bytes", static_cast<std::int64_t>(bytes_));
  if (links_) o.figures.number("symlinks", static_cast<std::int64_t>(links_));
  if (!reference_) {
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(digest_));
    o.what = counts(files_, bytes_, links_) + ", listing " + std::string(digest, 8);
    o.figures.string("listing", std::string(digest, 8));
    return o;
  }
  if (!reference_->has_names) {
    o.status = files_ == reference_->file_count && bytes_ == reference_->bytes ? 0 : 1;
    o.what = o.status == 0 ? "match: " + counts(files_, bytes_)
                           : "differs: " + counts(files_, bytes_) + "; the manifest says " +
                                 counts(reference_->file_count, reference_->bytes);
    o.figures.string("result", o.status == 0 ? "match" : "differs");
    return o;
  }
  std::uint64_t missing = 0, changed = 0;
  std::vector<std::string> missing_names, changed_names;
  for (std::size_t i = 0; i < seen_.size(); ++i) {
    const std::string& name = reference_->files[i].name;
    if (!seen_[i] && missing++ < kNamesShown) missing_names.push_back(name);
    if (seen_[i] && changed_[i] && changed++ < kNamesShown) changed_names.push_back(name);
  }
  o.status = missing == 0 && changed == 0 && extra_ == 0 ? 0 : 1;
  o.figures.string("result", o.status == 0 ? "match" : "differs");
  names_figures(o.figures, missing, "missing", missing_names);
  names_figures(o.figures, extra_, "extra", extra_names_);
  names_figures(o.figures, changed, "changed", changed_names);
  if (o.status == 0) {
    o.what = "match: " + counts(files_, bytes_, links_);
    return o;
  }
  std::vector<std::string> parts;
  if (missing) parts.push_back(names_part(missing, "missing", missing_names));
  if (extra_) parts.push_back(names_part(extra_, "extra", extra_names_));
  if (changed) parts.push_back(names_part(changed, "changed", changed_names));
  o.what = "differs:";
  for (std::size_t i = 0; i < parts.size(); ++i) o.what += (i ? ", " : " ") + parts[i];
  return o;
}

}  // namespace pdx
