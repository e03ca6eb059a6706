#pragma once
// `pdx push` to hosts where `pdx agent` cannot run (another architecture, a noexec home,
// --no-agent): the same files go as one tar stream made here, read by the host's own sh and tar
// (distribute/remote_commands.h, posix_push_command), slower but with the same promises: no
// file under its final name before it is complete, no symlink written through.
//
// Such a host is listed first with its find (posix_list_command, parse_posix_listing) and
// planned as an agent's host is (distribute/push/push_plan.h: what it lacks, size and mtime), so a
// run again sends only what changed; hosts with equal plans share one stream and one command,
// broadcast as a group's stream is. A host whose find cannot list (not GNU find) is sent
// everything. --checksum and --extract list nothing: such hosts are sent everything, but for a
// host that holds the --extract set unpacked as its sh recorded it (posix_extracted_command).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "distribute/push/push_plan.h"
#include "distribute/push/push_report.h"
#include "distribute/remote_commands.h"
#include "distribute/reply_sink.h"

namespace pdx {

/// "pdx: warning: HOSTS: the host's find cannot list DEST (not GNU find); sending everything\n".
std::string posix_unlisted_warning(const std::vector<std::string>& labels);

/// posix_list_command's reply, read as untrusted: records as it prints them, names under DEST
/// that check_name accepts ("./" taken off). An Error for anything else.
Result<HostListing> parse_posix_listing(std::string_view reply);

/// The tar stream and the command of a POSIX push, for every host without the agent.
class PosixPush {
 public:
  /// The files and directories of `plan` (plan_host's), as the agent would place them. The
  /// stream starts at once on a thread of its own; a file that cannot be read whole here is
  /// left out on the hosts and named by finish(). `sources` must outlive the PosixPush.
  static Result<std::unique_ptr<PosixPush>> files(const PushSources& sources,
                                                  const HostPushPlan& plan,
                                                  const std::string& dest);
  /// The archive's parts, read in order and handed to the host's tar as they are; its
  /// compression (gzip, bzip2, xz, zstd) read from its first bytes. An Error for a zip. `set`:
  /// the parts' identity, recorded on the host once it is unpacked ("": none).
  static Result<std::unique_ptr<PosixPush>> archive(const std::vector<std::string>& parts,
                                                    const std::string& dest,
                                                    const std::string& set);

  /// As finish().
  ~PosixPush();
  PosixPush(const PosixPush&) = delete;
  PosixPush& operator=(const PosixPush&) = delete;

  /// The command every such host runs (DEST as typed: %h %n substituted per host).
  const std::string& command() const { return command_; }
  /// The stream's read end, for Broadcast::start. Owned here.
  int input() const { return read_.get(); }
  /// Ends the stream (closes the read end, joins the thread), after the run, and returns what
  /// could not be read here, one line each.
  std::vector<std::string> finish();

 private:
  PosixPush() = default;
  template <class Produce>
  static Result<std::unique_ptr<PosixPush>> start(std::string command, Produce produce);

  std::string command_;
  Fd read_;
  std::thread thread_;
  std::vector<std::string> errors_;  // written by the thread; read after it is joined
};

/// What a host's sh replied: the failure records and the count, into `outcome`; a host that
/// failed as a whole (or whose reply is malformed) gets outcome.error.
void read_posix_reply(const ReplySink::Reply& reply, PushedHost& outcome);

}  // namespace pdx
