#pragma once
// pdx preflight's checks: from what each host's probe said (preflight/host_facts.h) to a
// verdict per check and host (preflight/check_report.h), compared across the hosts here. Pure:
// no I/O, so each check is tested with facts made up.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "preflight/check_report.h"
#include "preflight/host_facts.h"

namespace pdx {

/// One host as the checks see it.
struct HostProbe {
  std::string label;
  int slots = 0;      // the hostfile's slots=, 0: not given
  std::string error;  // not reached (or the probe did not run): why; else ""
  HostFacts facts;
  std::optional<double> clock_offset_ms;  // the host's clock minus this machine's
};

struct CheckOptions {
  std::string python = "python3";                                // --python, as named
  std::vector<std::pair<std::string, std::uint64_t>> need_disk;  // --need-disk DIR:SIZE
  std::uint64_t min_shm = 1ull << 30;                            // --min-shm
  std::uint64_t min_nofile = 4096;                               // --min-nofile
  double max_clock_ms = 500;                                     // --max-clock-offset
  std::optional<std::size_t> master;  // the master's rank, when the port is checked
  std::string master_name;
  int port = 29500;
  bool ssh = true;   // the first host's ssh to every host checked
  bool net = false;  // --net: the facts net, net.to, net.loopback (the ring), net.master...
  /// The SHA-256 of the agent this pdx deploys (and of its static fallback); empty: not checked.
  std::vector<std::string> agent_sha256;
};

/// The checks, in the order they are printed; a host not reached has a verdict in the first
/// ("reached") only.
std::vector<CheckResult> run_checks(const std::vector<HostProbe>& hosts, const CheckOptions& o);

}  // namespace pdx
