#pragma once
// What `pdx push` (distribute/push/push.h) found on each host, and what it says at its end
// (pdx(1), pdx push; Progress and JSON), built on the folding and the JSON lines of pull and
// verify (distribute/host_outcome.h).
#include <string>
#include <vector>

#include "agent/agent_protocol.h"
#include "distribute/host_outcome.h"
#include "transport/transport.h"

namespace pdx {

struct PushedHost {
  HostResult result;           // the host's transport failure, if any (the step it ended)
  std::string error;           // the host failed as a whole: agent missing, malformed reply, ...
  std::vector<Failed> failed;  // files that failed
  Summary written;             // what was written this run
  bool up_to_date = false;     // nothing needed sending
};

struct PushReport {
  std::vector<PushedHost> hosts;   // by host index
  std::vector<std::string> local;  // what could not be read here
};

/// The folded report: "pdx: HOSTS: 256 MiB in 3 files" per outcome (stdout), and
/// "pdx: HOSTS: REASON (PATH)" per failure (stderr). Hosts with equal lines fold.
struct PushText {
  std::string out, err;
};
PushText push_text(const std::vector<std::string>& labels, const PushReport& report);

/// --json: one line per host on stdout, {"host","status","files","bytes","up_to_date",
/// "failed":[{"path","reason"}],"error"}; what could not be read here goes to stderr, as in
/// the text report.
PushText push_json(const std::vector<std::string>& labels, const PushReport& report);

/// 0 all hosts complete; 255 a host unreachable; else 1 when a host or a file failed.
int push_exit_status(const PushReport& report);

}  // namespace pdx
