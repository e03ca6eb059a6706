#include "distribute/sync/sync_plan.h"

#include <algorithm>
#include <unordered_set>

namespace pdx {

namespace {

std::string parent_of(const std::string& name) {
  auto slash = name.rfind('/');
  return slash == std::string::npos ? "" : name.substr(0, slash);
}

// Calls `each` with every directory above `name`, nearest the root first.
template <class Each>
void for_each_above(const std::string& name, Each each) {
  for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
    each(name.substr(0, slash));
}

}  // namespace

void exclude_sources(PushSources& sources, const ExcludeRules& excludes) {
  if (excludes.empty()) return;
  std::erase_if(sources.into.dirs,
                [&](const LocalDir& d) { return excludes.hidden(d.name, true); });
  std::erase_if(sources.into.files,
                [&](const LocalFile& f) { return excludes.hidden(f.name, false); });
  std::erase_if(sources.into.links,
                [&](const LocalLink& l) { return excludes.hidden(l.name, false); });
  if (sources.as && sources.into.files.empty()) sources.as.reset();  // the lone file SRC
}

std::vector<Entry> deletions(const PushSources& sources, const HostListing& listing,
                             const ExcludeRules& excludes) {
  if (listing.dest.kind != EntryKind::directory) return {};
  std::unordered_set<std::string> kept, scope;
  for (const auto& d : sources.into.dirs) {
    kept.insert(d.name);
    scope.insert(d.name);
  }
  for (const auto& f : sources.into.files) kept.insert(f.name);
  for (const auto& l : sources.into.links) kept.insert(l.name);
  // What the sources have but push does not send (a device, a symlink --safe-links leaves out, a
  // directory that could not be read here) stays on the hosts, and all below it: rsync -a
  // --delete would not remove it either.
  kept.insert(sources.skipped_names.begin(), sources.skipped_names.end());
  for (const auto& name : sources.skipped_names) scope.erase(name);
  if (std::find(sources.tops.begin(), sources.tops.end(), ".") != sources.tops.end())
    scope.insert("");

  // An extra's top: in a directory of the sources, not one of their names.
  std::unordered_set<std::string> tops;
  for (const auto& [name, entry] : listing.entries)
    if (!kept.contains(name) && scope.contains(parent_of(name))) tops.insert(name);
  std::vector<Entry> extras;
  std::unordered_set<std::string> holding;  // directories above an excluded name: kept
  for (const auto& [name, entry] : listing.entries) {
    bool extra = tops.contains(name);
    for_each_above(name, [&](const std::string& up) { extra = extra || tops.contains(up); });
    if (!extra) continue;
    if (excludes.hidden(name, entry.kind == EntryKind::directory))
      for_each_above(name, [&](const std::string& up) { holding.insert(up); });
    else
      extras.push_back(entry);
  }
  std::erase_if(extras, [&](const Entry& e) { return holding.contains(e.name); });
  std::sort(extras.begin(), extras.end(), [](auto& a, auto& b) { return a.name > b.name; });
  return extras;
}

}  // namespace pdx
