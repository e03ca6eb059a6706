#pragma once
// `pdx push`: files, trees or an archive stream from here to every host, in passes over the
// transport (core/executor.h), each running `pdx agent` on the hosts still in the push:
//
//   1. list     `pdx agent --list DEST` on every host: what it has (and whether the agent is
//               deployed there: hosts without it get it, then are listed again)
//   2. plan     per host, the files it lacks (distribute/push_plan.h); hosts with equal plans
//               form a group that shares one FrameStream, read once here and broadcast
//   3. receive  `pdx agent --receive DEST` on every host with something to receive, its stdin
//               its group's stream; the replies say what was written and what failed
//   4. posix    hosts where the agent cannot run (or --no-agent): one tar stream into their
//               own sh and tar (distribute/posix_push.h), everything sent
//
// With --extract, the plan is the same for every host: the archive's parts, streamed once.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "archive/manifest.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/agent_protocol.h"
#include "distribute/relay_chain.h"
#include "transport/transport.h"

namespace pdx {

class ProgressMeter;

struct PushOptions {
  std::vector<std::string> sources;
  std::string dest;  // as typed: %h %n substituted per host, a trailing '/' kept
  bool extract = false;
  std::string agent;      // --agent PATH; empty: self-deploy
  bool no_agent = false;  // --no-agent: every host through its sh and tar (distribute/posix_push.h)
  std::size_t fanout = 64;

  bool checksum = false;             // --checksum: files compared by SHA-256, not mtime
  std::optional<Manifest> manifest;  // -m, with extract: each host's counts checked against it
  bool relay = false;                // --relay: host to host (distribute/relay_chain.h)
  RelayOptions relay_options;
  ProgressMeter* progress = nullptr;  // told of the bytes hosts take and the hosts that end
};

struct PushedHost {
  HostResult result;           // the host's transport failure, if any (its last pass)
  std::string error;           // the host failed as a whole: agent missing, malformed reply, ...
  std::vector<Failed> failed;  // files that failed
  Summary written;             // what was written this run
  bool up_to_date = false;     // nothing needed sending
};

struct PushReport {
  std::vector<PushedHost> hosts;   // by host index
  std::vector<std::string> local;  // what could not be read here
};

/// Runs the push. `tmpl` holds what is common to every job (env, user, timeouts); its command
/// and stdin are set per pass. Throws UsageError for bad sources (before any host is touched),
/// FatalError when pdx cannot read its own binary to deploy it.
PushReport push(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const PushOptions& options);

}  // namespace pdx
