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
#include <vector>

#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/sync/sync_options.h"
#include "distribute/sync/sync_report.h"
#include "transport/transport.h"

namespace pdx {

/// Runs the sync. As push(): throws UsageError for bad sources or a bad --exclude, FatalError
/// when pdx cannot read its own binary to deploy it.
SyncReport sync(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options);

}  // namespace pdx
