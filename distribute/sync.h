#pragma once
// `pdx sync SRC... DEST`: push's sources and layout (distribute/push_plan.h), but a file that
// differs on a host goes as an rsync-style delta (distribute/delta.h) against the host's old
// copy. In passes over the transport, each running `pdx agent` on the hosts:
//
//   1. signatures  `pdx agent --signatures DEST` on every host, its stdin the names, sizes and
//                  mtimes of the local files (one broadcast): how each stands there, and the
//                  block signatures of the changed ones, computed on the host's cores; with
//                  --delete, `pdx agent --list DEST` too: the extras (distribute/sync_plan.h)
//   2. group       hosts whose changed files and old signatures are all equal form a group; the
//                  delta is computed once per group, here, on a thread, and broadcast to it
//   3. patch       `pdx agent --patch DEST` on every host with a group: rebuilt, checked, renamed
//   4. whole       `pdx agent --receive DEST`: what is missing (or failed as a delta) goes whole,
//                  one FrameStream (distribute/frame_stream.h) per group of hosts with equal needs
//
// With --relay, passes 2-4 go a wave of -f hosts at a time (each wave's groups made and their
// streams read again), and a group of two hosts or more gets its stream host to host
// (distribute/relay_group.h): `pdx agent --relay-patch DEST` and `--relay DEST`, the head alone
// reading it from here; a relay that cannot link up is sent from here, said once.
//   5. delete      --delete, on each host where all went well: `pdx agent --delete DEST`, the
//                  extras listed in pass 1 (rsync's --delete-after)
//
// --exclude takes names out of the sources before pass 1 (distribute/exclude.h), and keeps the
// hosts' names that match from pass 5. With dry_run, pass 1 only, without blocks: what would be
// patched, sent and deleted, per host.
#include <cstdint>
#include <string>
#include <vector>

#include "distribute/agent_protocol.h"
#include "distribute/push_report.h"
#include "distribute/relay_chain.h"
#include "transport/transport.h"

namespace pdx {

struct SyncOptions {
  std::vector<std::string> sources;
  std::string dest;                   // as typed: %h %n substituted per host, a trailing '/' kept
  std::string agent;                  // --agent PATH; empty: self-deploy
  std::vector<std::string> excludes;  // --exclude, as typed
  bool delete_extras = false;         // --delete
  bool dry_run = false;
  std::size_t fanout = 64;
  bool relay = false;  // --relay: each group's deltas and whole files host to host
  RelayOptions relay_options;
};

struct SyncedHost {
  HostResult result;              // the host's transport failure in a pass, if any
  std::string error;              // the host failed as a whole: malformed reply, agent failed, ...
  std::vector<Failed> failed;     // files that failed (sent whole, or deleted)
  Summary patched;                // files rebuilt from deltas
  std::uint64_t delta_bytes = 0;  // bytes of the delta stream it received
  Summary written;                // files sent whole
  std::uint64_t deleted = 0;      // names removed by --delete
  std::vector<std::string> to_patch;   // dry_run: names under DEST
  std::vector<std::string> to_send;    // dry_run: missing or not a file there
  std::vector<std::string> to_delete;  // dry_run with --delete: a directory's with a '/'
};

struct SyncReport {
  std::vector<SyncedHost> hosts;        // by host index
  std::vector<std::string> local;       // what could not be read here
  std::vector<std::string> skipped;     // sources' symlinks, devices, fifos: not sent
  std::vector<std::string> called_off;  // --relay: "HOSTS: the relay could not link up (...)"
  bool dry_run = false;
};

/// Runs the sync. As push(): throws UsageError for bad sources or a bad --exclude, FatalError
/// when pdx cannot read its own binary to deploy it.
SyncReport sync(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options);

/// The folded report: "pdx: HOSTS: 1 file patched (256 MiB, 3.7 MiB sent), 2 files sent whole
/// (1 KiB), 3 deleted" or "up to date" (stdout); with dry_run "pdx: HOSTS: would patch NAME",
/// "would send NAME" and "would delete NAME"; failures as push's (stderr).
PushText sync_text(const std::vector<std::string>& labels, const SyncReport& report);

/// 0 all hosts complete; 255 a host unreachable; else 1 when a host or a file failed.
int sync_exit_status(const SyncReport& report);

}  // namespace pdx
