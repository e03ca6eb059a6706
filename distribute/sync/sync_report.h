#pragma once
// What `pdx sync` (distribute/sync/sync.h) found and did on each host, and what it says at its
// end, in push's words (distribute/push/push_report.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_protocol.h"
#include "distribute/push/push_report.h"
#include "transport/transport.h"

namespace pdx {

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

/// Whether all went well on the host: no transport failure, no error, no file failed.
bool sync_complete(const SyncedHost& host);

/// The folded report: "pdx: HOSTS: 1 file patched (256 MiB, 3.7 MiB sent), 2 files sent whole
/// (1 KiB), 3 deleted" or "up to date" (stdout); with dry_run "pdx: HOSTS: would patch NAME",
/// "would send NAME" and "would delete NAME"; failures as push's (stderr).
PushText sync_text(const std::vector<std::string>& labels, const SyncReport& report);

/// 0 all hosts complete; 255 a host unreachable; else 1 when a host or a file failed.
int sync_exit_status(const SyncReport& report);

}  // namespace pdx
