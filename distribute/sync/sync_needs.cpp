#include "distribute/sync/sync_needs.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

namespace pdx {

namespace fs = std::filesystem;

std::vector<SignatureRequest> signature_requests(const PushSources& sources, bool want) {
  std::vector<SignatureRequest> asked;
  for (const auto& f : sources.into.files)
    asked.push_back({f.name, f.size, f.mtime_sec, want, EntryKind::file, 0, "", f.mtime_nsec});
  for (const auto& d : sources.into.dirs)
    asked.push_back(
        {d.name, 0, d.mtime_sec, false, EntryKind::directory, d.mode, "", d.mtime_nsec});
  for (const auto& l : sources.into.links)
    asked.push_back({l.name, 0, 0, false, EntryKind::symlink, 0, l.target});
  if (sources.as) {
    const LocalFile& f = sources.as->files.front();
    asked.push_back({"", f.size, f.mtime_sec, want, EntryKind::file, 0, "", f.mtime_nsec});
  }
  return asked;
}

HostNeeds needs_of(const PushSources& sources, std::vector<OldFile>& old, bool dry_run,
                   SyncedHost& host) {
  HostNeeds needs;
  HostDeltas& d = needs.deltas;
  d.as = sources.as && old.back().state != OldState::directory;
  needs.whole.into = !d.as;
  const Layout& layout = d.as ? *sources.as : sources.into;
  for (std::size_t i = 0; i < layout.files.size(); ++i) {
    OldFile& f = d.as ? old.back() : old[i];
    const std::string& name = layout.files[i].name;
    if (f.state == OldState::changed) {
      if (dry_run)
        host.to_patch.push_back(name);
      else
        d.files.emplace_back(i, std::move(f.signature));
    } else if (f.state != OldState::same) {
      needs.whole.files.push_back(i);
      if (dry_run) host.to_send.push_back(name);
    }
  }
  if (d.as) return needs;
  std::size_t links_at = layout.files.size() + layout.dirs.size();
  for (std::size_t k = 0; k < layout.links.size(); ++k)
    if (old[links_at + k].state != OldState::same) {
      needs.whole.links.push_back(k);
      if (dry_run) host.to_send.push_back(layout.links[k].name);
    }
  std::vector<bool> dirs(layout.dirs.size());
  for (std::size_t k = 0; k < layout.dirs.size(); ++k)
    dirs[k] = old[layout.files.size() + k].state != OldState::same;
  // A directory whose contents change has its mtime set again after (push_plan.h's plan_host).
  std::unordered_map<std::string_view, std::size_t> dir_at;
  for (std::size_t k = 0; k < layout.dirs.size(); ++k) dir_at.emplace(layout.dirs[k].name, k);
  auto changes_parent = [&](const std::string& name) {
    auto slash = name.rfind('/');
    if (slash == std::string::npos) return;
    auto it = dir_at.find(std::string_view(name).substr(0, slash));
    if (it != dir_at.end()) dirs[it->second] = true;
  };
  for (std::size_t i = 0; i < layout.files.size(); ++i)
    if (old[i].state != OldState::same) changes_parent(layout.files[i].name);
  for (std::size_t k : needs.whole.links) changes_parent(layout.links[k].name);
  for (std::size_t k = 0; k < layout.dirs.size(); ++k)
    if (old[layout.files.size() + k].state != OldState::same &&
        old[layout.files.size() + k].state != OldState::directory)
      changes_parent(layout.dirs[k].name);
  for (std::size_t k = 0; k < layout.dirs.size(); ++k)
    if (dirs[k]) needs.whole.dirs.push_back(k);
  return needs;
}

void resend_failed(const PushSources& sources, const std::string& dest,
                   const std::vector<Failed>& failed, HostNeeds& needs, SyncedHost& host) {
  const Layout& layout = needs.deltas.as ? *sources.as : sources.into;
  std::unordered_map<std::string, std::size_t> by_path;
  for (const auto& [i, signature] : needs.deltas.files) {
    const std::string& name = layout.files[i].name;
    by_path.emplace(name.empty() ? dest : (fs::path(dest) / name).string(), i);
  }
  for (const auto& f : failed) {
    auto it = by_path.find(f.path);
    if (it == by_path.end()) {
      host.failed.push_back(f);
    } else if (std::find(needs.whole.files.begin(), needs.whole.files.end(), it->second) ==
               needs.whole.files.end()) {
      needs.whole.files.push_back(it->second);
    }
  }
  std::sort(needs.whole.files.begin(), needs.whole.files.end());
}

}  // namespace pdx
