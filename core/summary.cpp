#include "core/summary.h"

#include <algorithm>
#include <map>

#include "base/error.h"
#include "core/hostset.h"
#include "transport/signals.h"

namespace pdx {

std::string describe(const HostResult& r) {
  if (r.failure != Failure::none) return r.error.empty() ? "failed" : r.error;
  if (!r.signal.empty()) return "killed by signal " + r.signal;
  if (r.exit_status != 0) return "exit " + std::to_string(r.exit_status);
  return {};
}

int exit_status_of(const HostResult& r) {
  if (r.failure == Failure::interrupted) return 130;
  if (r.failure != Failure::none) return kExitUnreachable;
  if (!r.signal.empty()) {
    int n = signal_number(r.signal);
    return n ? 128 + n : kExitUnreachable;
  }
  return r.exit_status;
}

int run_exit_status(const std::vector<HostResult>& results) {
  int status = 0;
  for (const auto& r : results) status = std::max(status, exit_status_of(r));
  return status;
}

std::string folded_lines(const std::vector<std::string>& labels,
                         const std::vector<std::string>& whats) {
  std::map<std::string, std::vector<std::string>> hosts_by_what;
  std::vector<std::string> order;  // each distinct what, by first rank
  for (std::size_t i = 0; i < whats.size(); ++i) {
    if (whats[i].empty()) continue;
    auto& hosts = hosts_by_what[whats[i]];
    if (hosts.empty()) order.push_back(whats[i]);
    hosts.push_back(labels[i]);
  }
  std::string out;
  for (const auto& what : order)
    out += "pdx: " + fold_names(hosts_by_what[what]) + ": " + what + "\n";
  return out;
}

std::string failure_summary(const std::vector<std::string>& labels,
                            const std::vector<HostResult>& results) {
  std::vector<std::string> whats;
  for (const auto& result : results) whats.push_back(describe(result));
  return folded_lines(labels, whats);
}

}  // namespace pdx
