#pragma once
// pdx preflight: is every host ready for this training job (pdx(1), pdx preflight)? One probe per
// host (preflight/probe_script.h), all at once through the executor (core/executor.h), its facts
// compared across the hosts here (preflight/checks.h); then, with --data, pdx verify's own run
// (distribute/verify/verify.h) as one more check.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/hostset.h"
#include "core/jobs.h"
#include "preflight/check_report.h"
#include "preflight/checks.h"
#include "preflight/probe_script.h"
#include "transport/transport.h"

namespace pdx {

struct Reference;

struct PreflightOptions {
  CheckOptions checks;  // checks.master: the master's rank (nullopt: no port check)
  std::string python = "python3";
  double connect_wait_s = 5;  // how long each host tries the master's port
  std::string data_dir;       // --data; "" for none
  Reference* reference = nullptr;
  bool hash = false;
  std::string agent;
  bool no_agent = false;
  std::size_t fanout = 64;
  bool net = false;      // --net: the ring's bandwidth and latency
  double net_time = 3;   // --net-time: seconds each host sends
  int net_port = 29501;  // --net-port: where each host listens for its predecessor
};

struct PreflightReport {
  std::vector<CheckResult> checks;
  bool unreached = false;  // a host could not be reached (exit 255)
  std::string warning;     // what --data's verify warned of, or ""
};

/// Runs every probe and check. `tmpl`: user, timeouts, -E (the probe reads
/// NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME from its environment).
PreflightReport preflight(Transport& transport, const std::vector<Host>& hosts,
                          const JobTemplate& tmpl, const PreflightOptions& options);

/// The host's clock minus this machine's, from the probe's first line ("clock=NS", printed
/// first) and when it came here; nullopt when there is no such line.
std::optional<double> clock_offset_ms(const std::string& out,
                                      std::chrono::system_clock::time_point came);

}  // namespace pdx
