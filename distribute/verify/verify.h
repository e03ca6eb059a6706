#pragma once
// pdx verify: what every host holds under a directory, compared with a reference or, without
// one, with each other (pdx(1), pdx verify). Each host's verify is one task on its one session
// (core/executor.h: execute_tasks):
//
//   agent   `pdx agent --list=DIR --under=. [--checksum]` (agent/agent.h): every regular
//           file's name and size, with --hash its XXH3-128, hashed on all the host's cores; the
//           agent deployed first where it is missing (distribute/agent_start.h)
//   POSIX   where the agent cannot run, or every host with --no-agent: verify_command
//           (distribute/remote_commands.h), the host's find, and sha256sum on all its cores
//
// Either listing is parsed as it arrives (distribute/verify/listing.h) into the host's HostTally
// (distribute/verify/host_tally.h). With --hash against a directory, the reference is hashed here
// with XXH3-128 for the agent's hosts before the run, and with SHA-256 for the others the first
// time one of them needs it. Hosts without the agent are named once, folded by reason (the report's
// warning).
#include <cstddef>
#include <string>
#include <vector>

#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/host_outcome.h"
#include "distribute/verify/reference.h"
#include "transport/transport.h"

namespace pdx {

class ProgressMeter;

struct VerifyOptions {
  std::string remote_dir;          // as typed: relative to the home on the host
  Reference* reference = nullptr;  // none: hosts compared with each other; hashed by verify()
  bool hash = false;               // --hash: contents compared too
  std::string agent;               // --agent PATH; empty: self-deploy
  bool no_agent = false;           // --no-agent: every host through its POSIX tools
  std::size_t fanout = 64;
  ProgressMeter* progress = nullptr;  // told of the hosts that end
};

struct VerifyReport {
  std::vector<HostOutcome> hosts;  // by host index
  std::string warning;  // the hosts verified without the agent (agent_fallback_warning), or ""
};

/// Runs the verify; one outcome per host. Without a reference, hosts whose listing is not the
/// most common one (among hosts whose hashes are of the same kind) get status 1. `tmpl` holds
/// what is common to every job (env, user, timeouts); the commands are verify's own. Throws
/// FatalError when pdx cannot read its own binary to deploy it, or a reference file to hash it.
VerifyReport verify(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                    const VerifyOptions& options);

}  // namespace pdx
