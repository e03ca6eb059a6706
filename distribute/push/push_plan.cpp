#include "distribute/push/push_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/strings.h"
#include "hash/hash_files.h"

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
                   static_cast<std::uint64_t>(st.st_size),
                   {},
                   static_cast<std::uint64_t>(st.st_blocks) * 512};
}

LocalDir dir_of(const std::string& name, const struct stat& st) {
  return LocalDir{name, static_cast<std::uint32_t>(st.st_mode & 07777), st.st_mtim.tv_sec,
                  static_cast<std::uint32_t>(st.st_mtim.tv_nsec)};
}

// One SRC's tree being walked into `sources`.
struct Walk {
  PushSources& sources;
  Links links;

  void skip(const std::string& path, const std::string& as) {
    sources.skipped.push_back(path);
    sources.skipped_names.push_back(as);
  }

  // The symlink at `path`, `depth` directories below SRC's top, named `name` under DEST.
  void add_link(const std::string& path, const std::string& name, std::size_t depth,
                const struct stat& st) {
    std::error_code ec;
    std::string target = fs::read_symlink(path, ec).string();
    if (ec) {
      sources.unread.push_back(path + ": " + ec.message());
      sources.skipped_names.push_back(name);
      return;
    }
    if (links == Links::safe && leaves_tree(target, depth)) {
      sources.unsafe.push_back(path + " -> " + target);
      sources.skipped_names.push_back(name);
      return;
    }
    sources.into.links.push_back({path, name, std::move(target), st.st_mtim.tv_sec,
                                  static_cast<std::uint32_t>(st.st_mtim.tv_nsec)});
  }

  // What directory `path` holds (`name` under DEST, `depth` below SRC's top), parents before
  // children. A subdirectory that cannot be read is noted, and the rest goes on.
  void add_contents(const std::string& path, const std::string& name, std::size_t depth) {
    std::error_code ec;
    fs::directory_iterator it(path, ec);
    std::vector<std::pair<std::string, std::string>> subdirs;  // (path, name), after the others
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::string child = it->path().string();
      std::string rel = under(name, it->path().filename().string());
      struct stat st;
      if (::lstat(child.c_str(), &st) != 0) {
        sources.unread.push_back(child + ": " + std::strerror(errno));
        sources.skipped_names.push_back(rel);
      } else if (S_ISDIR(st.st_mode)) {
        if (::access(child.c_str(), R_OK | X_OK) != 0) {
          sources.unread.push_back(child + ": " + std::strerror(errno));
          sources.skipped_names.push_back(rel);
          continue;
        }
        sources.into.dirs.push_back(dir_of(rel, st));
        subdirs.emplace_back(std::move(child), std::move(rel));
      } else if (S_ISREG(st.st_mode)) {
        sources.into.files.push_back(file_of(child, rel, st));
      } else if (S_ISLNK(st.st_mode)) {
        add_link(child, rel, depth, st);
      } else {
        skip(child, rel);
      }
    }
    if (ec) {
      sources.unread.push_back(path + ": " + ec.message());
      sources.skipped_names.push_back(name);
    }
    for (auto& [child, rel] : subdirs) add_contents(child, rel, depth + 1);
  }
};

// Adds SRC (already stat'ed, symlink followed) under `name` ("" for DEST itself).
Result<void> add_source(const std::string& src, const std::string& name, const struct stat& top,
                        PushSources& sources, Links links) {
  Walk walk{sources, links};
  if (S_ISREG(top.st_mode)) {
    sources.into.files.push_back(file_of(src, name, top));
    return {};
  }
  if (!S_ISDIR(top.st_mode)) {
    walk.skip(src, name);
    return {};
  }
  if (::access(src.c_str(), R_OK | X_OK) != 0) return unreadable(src, errno);
  if (!name.empty()) sources.into.dirs.push_back(dir_of(name, top));
  walk.add_contents(src, name, 0);
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
  return same_mtime(have->mtime_sec, have->mtime_nsec, f.mtime_sec, f.mtime_nsec);
}

std::string base_name(const std::string& src) {
  std::string name = fs::path(src).filename().string();
  return name == "." || name == ".." ? "" : name;  // DIR/, ., ..: the directory's contents
}

}  // namespace

bool leaves_tree(std::string_view target, std::size_t depth) {
  if (target.empty() || target.front() == '/') return true;
  auto level = static_cast<std::int64_t>(depth);
  for (std::size_t start = 0; start <= target.size();) {
    std::size_t end = std::min(target.find('/', start), target.size());
    std::string_view part = target.substr(start, end - start);
    if (part == "..") {
      if (--level < 0) return true;
    } else if (!part.empty() && part != ".") {
      ++level;
    }
    start = end + 1;
  }
  return false;
}

std::string source_warnings(const PushSources& sources) {
  std::string text;
  for (const auto& s : sources.skipped)
    text += "pdx: warning: " + s + ": not a file, directory or symlink, not sent\n";
  for (const auto& s : sources.unsafe)
    text += "pdx: warning: " + s + ": symlink out of its source, not sent (--safe-links)\n";
  return text;
}

Result<PushSources> scan_sources(const std::vector<std::string>& sources, const std::string& dest,
                                 Links links) {
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
    TRY(add_source(src, name, st, result, links));
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
    if (frame->type == FrameType::extracted && !first) {
      listing.extracted = frame->payload;  // compared with what was asked, never trusted further
      continue;
    }
    if (frame->type != FrameType::entry || !listing.extracted.empty())
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

std::uint64_t stream_size(const PushSources& sources, const HostPushPlan& plan) {
  const Layout& layout = layout_of(sources, plan);
  std::uint64_t bytes = 0;
  for (std::size_t f : plan.files)
    bytes += layout.files[f].wire_size() + kEntryFrameBytes + layout.files[f].name.size();
  for (std::size_t d : plan.dirs) bytes += kEntryFrameBytes + layout.dirs[d].name.size();
  for (std::size_t l : plan.links)
    bytes += kEntryFrameBytes + layout.links[l].name.size() + layout.links[l].target.size();
  return bytes;
}

Result<HostPushPlan> plan_host(const PushSources& sources, const HostListing& listing,
                               const std::string& dest, Lister lister) {
  HostPushPlan plan;
  plan.into = !sources.as || listing.dest.kind == EntryKind::directory;
  const Layout& layout = layout_of(sources, plan);
  if (plan.into && listing.dest.kind != EntryKind::missing &&
      listing.dest.kind != EntryKind::directory)
    return Error{"Not a directory (" + dest + ")"};
  std::unordered_map<std::string_view, std::size_t> dir_at;
  for (std::size_t i = 0; i < layout.dirs.size(); ++i) dir_at.emplace(layout.dirs[i].name, i);
  std::vector<bool> needed(layout.dirs.size());
  bool agent = lister == Lister::agent;
  auto changes_parent = [&](const std::string& name) {  // its directory's mtime is set again
    auto slash = name.rfind('/');
    if (slash == std::string::npos) return;
    auto it = dir_at.find(std::string_view(name).substr(0, slash));
    if (it != dir_at.end()) needed[it->second] = true;
  };
  for (std::size_t i = 0; i < layout.dirs.size(); ++i) {
    const LocalDir& d = layout.dirs[i];
    const Entry* have = find_entry(listing, d.name);
    if (!have || have->kind != EntryKind::directory) {
      needed[i] = true;
      changes_parent(d.name);
    } else if (have->mode != d.mode ||
               !same_mtime(have->mtime_sec, have->mtime_nsec, d.mtime_sec, d.mtime_nsec)) {
      needed[i] = true;
    }
  }
  for (std::size_t i = 0; i < layout.files.size(); ++i) {
    const LocalFile& f = layout.files[i];
    if (up_to_date(f, find_entry(listing, f.name), sources.compare)) continue;
    plan.files.push_back(i);
    changes_parent(f.name);
  }
  for (std::size_t i = 0; i < layout.links.size(); ++i) {
    const LocalLink& l = layout.links[i];
    const Entry* have = find_entry(listing, l.name);
    bool same = agent ? have && have->kind == EntryKind::symlink && have->target == l.target
                      : have && have->kind == EntryKind::other;  // find: a symlink, target unknown
    if (same) continue;
    plan.links.push_back(i);
    changes_parent(l.name);
  }
  for (std::size_t i = 0; i < layout.dirs.size(); ++i)
    if (needed[i]) plan.dirs.push_back(i);
  return plan;
}

}  // namespace pdx
