#pragma once
// `pdx sync SRC... DEST`: push's sources and layout (distribute/push/push_plan.h), but a file that
// differs on a host goes as an rsync-style delta (agent/delta.h) against the host's old
// copy. Each host's sync is one task on its one session (core/executor.h: execute_tasks), in
// waves of -f hosts (distribute/wave.h), running `pdx agent` there in steps:
//
//   1. signatures  `pdx agent --signatures DEST`, its stdin the names, sizes and mtimes of the
//                  local files: how each stands there, and the block signatures of the changed
//                  ones, computed on the host's cores (the agent deployed first where it is
//                  missing); with --delete, `pdx agent --list DEST` too: the extras
//                  (distribute/sync/sync_plan.h)
//   2. patch       once every host of the wave has its signatures (the wave's first meeting):
//                  hosts whose changed files and old signatures are all equal form a group, its
//                  delta computed once, here, on a thread, and broadcast to it; `pdx agent
//                  --patch DEST`: rebuilt, checked, renamed
//   3. whole       once every host of the wave has patched (the second meeting): what is
//                  missing (or failed as a delta) goes whole, `pdx agent --receive DEST`, one
//                  FrameStream (distribute/push/frame_stream.h) per group of hosts with equal needs
//   4. delete      --delete, on a host where all went well: `pdx agent --delete DEST`, the
//                  extras listed in step 1 (rsync's --delete-after)
//
// Each wave makes its groups' streams again (a delta is computed once per group and wave).
// With --relay a group of two hosts or more gets its stream host to host
// (distribute/relay/relay_group.h): `pdx agent --relay-patch DEST` and `--relay DEST`, the first
// host alone reading it from here; a relay that cannot link up is sent from here, said once.
// --exclude takes names out of the sources before step 1 (distribute/sync/exclude.h), and keeps the
// hosts' names that match from step 4. With dry_run, step 1 only, without blocks: what would be
// patched, sent and deleted, per host.
#include <cstdint>
#include <string>
#include <vector>

#include "agent/agent_protocol.h"
#include "distribute/push/push_report.h"
#include "distribute/relay/relay_chain.h"
#include "transport/transport.h"

namespace pdx {

struct SyncOptions {
  std::vector<std::string> sources;
  std::string dest;                   // as typed: %h %n substituted per host, a trailing '/' kept
  std::string agent;                  // --agent PATH; empty: self-deploy
  std::vector<std::string> excludes;  // --exclude, as typed
  bool delete_extras = false;         // --delete
  bool safe_links = false;            // --safe-links: symlinks out of their SRC not sent
  bool dry_run = false;
  std::size_t fanout = 64;
  bool relay = false;  // --relay: each group's deltas and whole files host to host
  RelayOptions relay_options;
};

struct SyncedHost {
  HostResult result;              // the host's transport failure in a step, if any
  std::string error;              // the host failed as a whole: malformed reply, agent failed, ...
  std::vector<Failed> failed;     // files that failed (sent whole, or deleted)
  Summary patched;                // files rebuilt from deltas
  std::uint64_t delta_bytes = 0;  // bytes of the delta stream it received
  Summary written;                // files sent whole
  std::uint64_t deleted = 0;      // names removed by --delete
  std::vector<std::string> to_patch;   // dry_run: names under DEST
  std::vector<std::string> to_send;    // dry_run: missing or not a file there
  std::vector<std::string> to_delete;  // dry_run with --delete: a directory's with a '/'
  std::string forwarded;        // --relay: what it said of a link it bridged around, a warning
  bool agent_replaced = false;  // its cached agent was not to be trusted: uploaded again
  std::optional<std::string> agent_static;  // it cannot run pdx (why): pdx-static sent there
};

struct SyncReport {
  std::vector<SyncedHost> hosts;   // by host index
  std::vector<std::string> local;  // what could not be read here
  std::string warnings;            // about the sources: what is not sent (source_warnings)
  // --relay: "HOSTS: the relay could not link up (...)", every group called off in one line,
  // with the first reason; "" when none.
  std::string called_off;
  std::vector<std::string> bridged_heads;  // --relay: RelayGroup::head_bridged()'s lines
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
