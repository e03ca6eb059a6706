#pragma once
// `pdx sync SRC... DEST`: push's sources and layout (distribute/push_plan.h), but a file that
// differs on a host goes as an rsync-style delta (distribute/delta.h) against the host's old
// copy. In passes over the transport, each running `pdx agent` on the hosts:
//
//   1. signatures  `pdx agent --signatures DEST` on every host, its stdin the names, sizes and
//                  mtimes of the local files (one broadcast): how each stands there, and the
//                  block signatures of the changed ones, computed on the host's cores
//   2. group       hosts whose changed files and old signatures are all equal form a group; the
//                  delta is computed once per group, here, on a thread, and broadcast to it
//   3. patch       `pdx agent --patch DEST` on every host with a group: rebuilt, checked, renamed
//   4. push        what is missing (or failed as a delta) goes whole: distribute/push.h
//
// With dry_run, pass 1 only, without blocks: what would be patched and sent, per host.
#include <cstdint>
#include <string>
#include <vector>

#include "distribute/push.h"
#include "distribute/push_report.h"

namespace pdx {

struct SyncOptions {
  std::vector<std::string> sources;
  std::string dest;   // as typed: %h %n substituted per host, a trailing '/' kept
  std::string agent;  // --agent PATH; empty: self-deploy
  bool dry_run = false;
  std::size_t fanout = 64;
};

struct SyncedHost {
  HostResult result;              // the host's transport failure in a delta pass, if any
  std::string error;              // the host failed as a whole: malformed reply, agent failed, ...
  std::vector<Failed> failed;     // files that failed to patch (sent whole after)
  Summary patched;                // files rebuilt from deltas
  std::uint64_t delta_bytes = 0;  // bytes of the delta stream it received
  std::vector<std::string> to_patch;  // dry_run: names under DEST
  std::vector<std::string> to_send;   // dry_run: missing or not a file there
};

struct SyncReport {
  std::vector<SyncedHost> hosts;   // by host index
  PushReport whole;                // pass 4 (empty with dry_run)
  std::vector<std::string> local;  // what could not be read here
  bool dry_run = false;
};

/// Runs the sync. As push(): throws UsageError for bad sources, FatalError when pdx cannot read
/// its own binary to deploy it.
SyncReport sync(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options);

/// The folded report: "pdx: HOSTS: 1 file patched (256 MiB, 3.7 MiB sent), 2 files sent whole
/// (1 KiB)" or "up to date" (stdout); with dry_run "pdx: HOSTS: would patch NAME" and "would
/// send NAME"; failures as push's (stderr).
PushText sync_text(const std::vector<std::string>& labels, const SyncReport& report);

/// 0 all hosts complete; 255 a host unreachable; else 1 when a host or a file failed.
int sync_exit_status(const SyncReport& report);

}  // namespace pdx
