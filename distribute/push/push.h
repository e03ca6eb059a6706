#pragma once
// `pdx push`: files, trees or an archive stream from here to every host. Each host's push is one
// task on its one session (core/executor.h: execute_tasks), running `pdx agent` there in steps:
//
//   1. list     `pdx agent --list DEST`: what the host has (and whether the agent is deployed
//               there: a host without it gets it, then is listed again). DEST/ is listed as
//               DEST, so that a file there is seen as one (a symlink there is listed again
//               through it). A host where the agent cannot run, or every host with --no-agent,
//               is listed by its find instead (distribute/push/posix_push.h)
//   2. plan     once every host of its wave has listed or failed (distribute/wave_barrier.h):
//               per host, the files it lacks (distribute/push/push_plan.h, --checksum comparing the
//               wave's listings by content); hosts with equal plans form a group that shares one
//               FrameStream, read once here and broadcast; the hosts without the agent form
//               groups of their own the same way, each sent one tar stream
//   3. receive  `pdx agent --receive DEST`, its stdin its group's stream; the reply says what
//               was written and what failed. With --relay, a group of two hosts or more runs
//               `pdx agent --relay=DEST` instead, host to host (distribute/relay/relay_chain.h); a
//               chain that cannot link up is sent from here, as without --relay. An agent gone
//               from the host since step 1 is deployed again, once, and the host sent a stream
//               of its own
//
// A wave is at most -f hosts, run at once; the hosts beyond are the next waves', each reading
// the sources again, so no stream is ever kept for hosts that have not started.
// With --extract, the plan is the same for every host: the archive's parts, streamed once a wave.
// Warnings (hosts without the agent, relays called off) are said once, after the run.
#include <vector>

#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/push/push_options.h"
#include "distribute/push/push_report.h"
#include "transport/transport.h"

namespace pdx {

/// Runs the push. `tmpl` holds what is common to every job (env, user, timeouts); its command
/// and stdin are the push's own. Throws UsageError for bad sources (before any host is touched),
/// FatalError when pdx cannot read its own binary (before, when it is to be deployed) or cannot
/// start a stream (once the run is over: no later wave is sent anything).
PushReport push(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const PushOptions& options);

}  // namespace pdx
