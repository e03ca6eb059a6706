#pragma once
// pdx pull: every host's files into LOCAL_DIR/<host>/ (pdx(1), pdx pull).
//
// Each host's files come as one tar stream, fed as it arrives to an UnpackProcess writing into
// LOCAL_DIR/host_directory(label) (distribute/pull/pull_receiver.h). So what comes back is
// unpacked by pdx's own code: names with "..", absolute names and writes through symlinks are
// refused, and a file gets its name only when complete. The stream comes
//   - over a direct link (--data-via auto, where the host was reached over TCP, or direct): its
//     agent's `--send` (agent/agent_send.h) sends it, sealed, over a link pdx makes to it
//     (distribute/pull/pull_link.h); the agent deployed first where it is missing
//     (distribute/agent_start.h);
//   - else, and where the agent cannot run or no link can be made (said once, hosts folded), on
//     its ssh session: pull_command's tar (distribute/remote_commands.h), its stdout.
#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/direct_link.h"
#include "distribute/host_outcome.h"
#include "distribute/remote_commands.h"
#include "transport/transport.h"

namespace pdx {

class ProgressMeter;

struct PullOptions {
  std::vector<std::string> remotes;  // REMOTE..., as pull_command takes them (checked by it)
  bool host_suffix = false;          // rpdcp: each REMOTE's top name gets ".NAME" (the host's)
  Directories directories = Directories::copied;
  std::string local_dir;
  std::vector<std::string> unpacker;  // the pdx binary and "unpack"
  std::size_t fanout = 64;
  bool host_directories = true;  // LOCAL_DIR/<host>/; false: LOCAL_DIR itself (rpdcp's NAME.HOST)
  DataVia data_via = DataVia::automatic;
  RelayOptions relay;                 // where the agents listen (bind, low, high)
  ProgressMeter* progress = nullptr;  // told of the bytes received and the hosts that end
};

struct PullReport {
  std::vector<HostOutcome> hosts;  // by host index
  std::string warning;  // hosts pulled over ssh after all, and why; agents replaced; or ""
};

/// Whether LOCAL_DIR can take what the hosts send, checked here before any host is reached: a
/// directory this user may write into, or one that can be made (its nearest existing ancestor
/// a directory it may write into). An Error naming it: ErrorKind::bad_input when it is "" or not a
/// directory, else why it cannot be written ("Permission denied", "Read-only file system").
Result<void> check_local_dir(const std::string& local_dir);

/// Pulls from every host and unpacks what each sends. One outcome per host: "pulled"; the host's
/// first complaint (tar's "x: Cannot stat: ...", the agent's "x: cannot read: ..."), what unpack
/// refused, or why the link broke ("a relay chunk failed its check") (status 1); or why the host
/// was not reached (255). `tmpl` holds what is common to every job; the commands are pull's.
/// Throws FatalError when pdx cannot read its own binary to deploy it.
PullReport pull(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const PullOptions& options);

}  // namespace pdx
