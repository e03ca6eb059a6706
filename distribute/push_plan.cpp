#include "distribute/push_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "archive/hash_files.h"
#include "base/strings.h"

namespace pdx {

namespace fs = std::filesystem;

namespace {

Error unreadable(const std::string& path, int error) {
  return Error{path + ": " + std::strerror(error), ErrorKind::bad_input};
}

std::string under(const std::string& base, const std::string& name) {
  if (base.empty()) return name;
  if (name.empty()) return base;
  return base + "/" + name;
}

LocalFile file_of(const std::string& path, const std::string& name, const struct stat& st) {
  return LocalFile{path,
                   name,
                   static_cast<std::uint32_t>(st.st_mode & 07777),
                   st.st_mtim.tv_sec,
                   static_cast<std::uint32_t>(st.st_mtim.tv_nsec),
                   static_cast<std::uint64_t>(st.st_size)};
}

LocalDir dir_of(const std::string& name, const struct stat& st) {
  return LocalDir{name, static_cast<std::uint32_t>(st.st_mode & 07777), st.st_mtim.tv_sec,
                  static_cast<std::uint32_t>(st.st_mtim.tv_nsec)};
}

// Adds SRC (already stat'ed, symlink followed) under `name` ("" for DEST itself).
Result<void> add_source(const std::string& src, const std::string& name, const struct stat& top,
                        PushSources& sources) {
  Layout& layout = sources.into;
  auto skip = [&sources](const std::string& path, const std::string& as) {
    sources.skipped.push_back(path);
    sources.skipped_names.push_back(as);
  };
  if (S_ISREG(top.st_mode)) {
    layout.files.push_back(file_of(src, name, top));
    return {};
  }
  if (!S_ISDIR(top.st_mode)) {
    skip(src, name);
    return {};
  }
  if (!name.empty()) layout.dirs.push_back(dir_of(name, top));
  std::error_code ec;
  fs::recursive_directory_iterator it(src, ec);
  if (ec) return unreadable(src, ec.value());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return unreadable(it->path().string(), ec.value());
    std::string rel = under(name, it->path().lexically_relative(src).string());
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0) return unreadable(it->path().string(), errno);
    if (S_ISDIR(st.st_mode))
      layout.dirs.push_back(dir_of(rel, st));
    else if (S_ISREG(st.st_mode))
      layout.files.push_back(file_of(it->path().string(), rel, st));
    else
      skip(it->path().string(), rel);
  }
  if (ec) return unreadable(src, ec.value());
  return {};
}

// The host's entry at `name` under DEST ("" for DEST itself), or nullptr.
const Entry* find_entry(const HostListing& listing, const std::string& name) {
  if (name.empty()) return &listing.dest;
  auto it = listing.entries.find(name);
  return it == listing.entries.end() ? nullptr : &it->second;
}

bool up_to_date(const LocalFile& f, const Entry* have, Compare compare) {
  if (!have || have->kind != EntryKind::file || have->size != f.size) return false;
  if (compare == Compare::contents) return !f.digest.empty() && f.digest == have->digest;
  return have->mtime_sec == f.mtime_sec;
}

std::string base_name(const std::string& src) {
  std::string name = fs::path(src).filename().string();
  return name == "." || name == ".." ? "" : name;  // DIR/, ., ..: the directory's contents
}

}  // namespace

Result<PushSources> scan_sources(const std::vector<std::string>& sources, const std::string& dest) {
  PushSources result;
  std::vector<std::string> unsent;  // named sources that are neither file nor directory
  for (const auto& src : sources) {
    struct stat st;
    if (::stat(src.c_str(), &st) != 0) return unreadable(src, errno);
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) unsent.push_back(src);
    bool as_possible = sources.size() == 1 && !dest.ends_with('/') && S_ISREG(st.st_mode);
    if (as_possible) result.as.emplace();
    if (S_ISREG(st.st_mode) && ::access(src.c_str(), R_OK) != 0) return unreadable(src, errno);
    std::string name = base_name(src);
    if (name.empty() && !S_ISDIR(st.st_mode))
      return Error{src + ": not a directory", ErrorKind::bad_input};
    TRY(add_source(src, name, st, result));
    result.tops.push_back(name.empty() ? "." : name);
    if (as_possible) result.as->files.push_back(file_of(src, "", st));
  }
  // Only FIFOs or devices (/dev/zero) named: "up to date" would say something was compared.
  if (unsent.size() == sources.size())
    return Error{join(unsent, ", ") + ": not a file or directory: nothing to send",
                 ErrorKind::bad_input};
  return result;
}

Result<HostListing> parse_listing(std::string_view reply) {
  FrameDecoder decoder;
  decoder.feed(reply);
  HostListing listing;
  bool first = true, summary = false;
  for (;;) {
    auto frame = TRY(decoder.next());
    if (!frame) break;
    if (summary) return Error{"bytes after the listing's end", ErrorKind::bad_input};
    if (frame->type == FrameType::summary) {
      TRY(decode_summary(frame->payload));
      summary = true;
      continue;
    }
    if (frame->type != FrameType::entry)
      return Error{"unexpected frame in a listing", ErrorKind::bad_input};
    Entry entry = TRY(decode_entry(frame->payload));
    if (first != entry.name.empty()) return Error{"listing out of order", ErrorKind::bad_input};
    if (first)
      listing.dest = entry;
    else
      listing.entries[entry.name] = entry;
    first = false;
  }
  if (!summary || decoder.partial()) return Error{"listing cut short", ErrorKind::bad_input};
  return listing;
}

void compare_contents(PushSources& sources,
                      const std::vector<std::pair<std::size_t, HostListing>>& listings) {
  sources.compare = Compare::contents;
  auto worth_hashing = [&](const LocalFile& f) {
    return std::any_of(listings.begin(), listings.end(), [&](const auto& listed) {
      const Entry* have = find_entry(listed.second, f.name);
      return have && have->kind == EntryKind::file && have->size == f.size && !have->digest.empty();
    });
  };
  std::vector<LocalFile*> files;  // both layouts: the one file of `as` is also in `into`
  for (auto& f : sources.into.files) files.push_back(&f);
  if (sources.as)
    for (auto& f : sources.as->files) files.push_back(&f);
  std::vector<std::string> paths;
  std::unordered_map<std::string, std::size_t> position;  // path -> index in paths
  std::vector<std::pair<LocalFile*, std::size_t>> wanted;
  for (LocalFile* f : files) {
    if (!f->digest.empty() || !worth_hashing(*f)) continue;  // an earlier wave hashed it
    auto [it, added] = position.emplace(f->path, paths.size());
    if (added) paths.push_back(f->path);
    wanted.emplace_back(f, it->second);
  }
  // A file that cannot be read here keeps no hash: it is sent, and its stream names the error.
  auto hashes = hash_files(paths, FileDigest::xxh3);
  for (auto& [f, k] : wanted) f->digest = hashes[k].digest;
}

const Layout& layout_of(const PushSources& sources, const HostPushPlan& plan) {
  return plan.into ? sources.into : *sources.as;
}

Result<HostPushPlan> plan_host(const PushSources& sources, const HostListing& listing,
                               const std::string& dest) {
  HostPushPlan plan;
  plan.into = !sources.as || listing.dest.kind == EntryKind::directory;
  const Layout& layout = layout_of(sources, plan);
  if (plan.into && listing.dest.kind != EntryKind::missing &&
      listing.dest.kind != EntryKind::directory)
    return Error{"Not a directory (" + dest + ")"};
  for (std::size_t i = 0; i < layout.dirs.size(); ++i) {
    const Entry* have = find_entry(listing, layout.dirs[i].name);
    if (!have || have->kind != EntryKind::directory) plan.dirs.push_back(i);
  }
  for (std::size_t i = 0; i < layout.files.size(); ++i) {
    const LocalFile& f = layout.files[i];
    if (!up_to_date(f, find_entry(listing, f.name), sources.compare)) plan.files.push_back(i);
  }
  return plan;
}

}  // namespace pdx
