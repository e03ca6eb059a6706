#pragma once
// pdx pull: every host's files into LOCAL_DIR/<host>/ (pdx(1), pdx pull).
//
// Each host runs pull_command's tar (distribute/remote_commands.h); its stdout is fed, as it
// arrives, to an UnpackProcess writing into LOCAL_DIR/host_directory(label). So what comes back
// is unpacked by pdx's own code: names with "..", absolute names and writes through symlinks
// are refused, and a file gets its name only when complete.
#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "distribute/host_outcome.h"
#include "transport/transport.h"

namespace pdx {

class ProgressMeter;

struct PullOptions {
  std::string local_dir;
  std::vector<std::string> unpacker;  // the pdx binary and "unpack"
  std::size_t fanout = 64;
  bool host_directories = true;  // LOCAL_DIR/<host>/; false: LOCAL_DIR itself (rpdcp's NAME.HOST)
  ProgressMeter* progress = nullptr;  // told of the bytes received and the hosts that end
};

/// Whether LOCAL_DIR can take what the hosts send, checked here before any host is reached: a
/// directory this user may write into, or one that can be made (its nearest existing ancestor
/// a directory it may write into). An Error naming it: ErrorKind::bad_input when it is "" or not a
/// directory, else why it cannot be written ("Permission denied", "Read-only file system").
Result<void> check_local_dir(const std::string& local_dir);

/// Runs the jobs (their commands pull_command's) and unpacks what each host sends. One outcome
/// per job: "pulled"; the host's first complaint (tar's "x: Cannot stat: ...") or what unpack
/// refused (status 1); or why the host was not reached (255).
std::vector<HostOutcome> pull(Transport& transport, const std::vector<Job>& jobs,
                              const PullOptions& options);

}  // namespace pdx
