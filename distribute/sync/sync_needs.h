#pragma once
// What step 1 of `pdx sync` (distribute/sync/sync.h) finds each host needs, from its agent's answer
// to the signature requests: the deltas of its changed files against their old signatures, and
// what goes whole (missing there, not a file there, a directory missing); and after its patch,
// the files whose patch failed, to go whole too.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "agent/delta_protocol.h"
#include "distribute/push/push_plan.h"
#include "distribute/sync/sync_report.h"

namespace pdx {

/// What every host is asked in step 1: each file of the `into` layout, each directory (whether
/// it is there with its mode and mtime), each symlink (whether it points there), then, when the
/// sources may land `as` DEST, DEST itself (""). `want`: the changed files' blocks too (not with
/// --dry-run).
std::vector<SignatureRequest> signature_requests(const PushSources& sources, bool want);

// One host's changed files, by index into its layout (sources.as when `as`: one file landing
// as DEST, else sources.into), with their old signatures.
struct HostDeltas {
  bool as = false;
  std::vector<std::pair<std::size_t, Signature>> files;
  bool operator==(const HostDeltas&) const = default;
};

// What step 1 found a host needs: its deltas, what is to go whole (missing, not a file there, a
// directory missing), with --delete its extras.
struct HostNeeds {
  HostDeltas deltas;
  HostPushPlan whole;
  std::vector<Entry> extras;
};

/// A host's needs from its answers `old` (one per request, in order; their signatures moved
/// out). With dry_run, no deltas: the names to patch and to send go to `host` instead.
HostNeeds needs_of(const PushSources& sources, std::vector<OldFile>& old, bool dry_run,
                   SyncedHost& host);

/// The files of `needs` whose patch failed (DEST/NAME, or DEST itself for "as"; `dest` as the
/// host's agent was given it), added to what goes whole. A failure that names none of them (the
/// reply is the host's) is the host's own: it goes to host.failed.
void resend_failed(const PushSources& sources, const std::string& dest,
                   const std::vector<Failed>& failed, HostNeeds& needs, SyncedHost& host);

}  // namespace pdx
