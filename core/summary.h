#pragma once
// What a run's results mean: one host's outcome in words, the run's exit status, and the
// folded failure summary printed on stderr ("pdx: node[03,17]: exit 1").
#include <string>
#include <vector>

#include "transport/transport.h"

namespace pdx {

/// "exit 3", "killed by signal KILL", or the failure's own message. Empty for exit 0.
std::string describe(const HostResult& result);

/// The status this host contributes: its exit status; 128+N when killed by signal N; 255 when
/// it could not be reached, authenticated, or timed out; 130 when interrupted.
int exit_status_of(const HostResult& result);

/// The run's exit status: the largest of the hosts' (0 for no hosts).
int run_exit_status(const std::vector<HostResult>& results);

/// Lines "pdx: HOSTS: WHAT\n", one per distinct non-empty whats[i] (what happened on labels[i]),
/// host sets folded, in order of first rank.
std::string folded_lines(const std::vector<std::string>& labels,
                         const std::vector<std::string>& whats);

/// Lines "pdx: HOSTS: WHAT\n", one per distinct failure, host sets folded, in order of first
/// rank. Empty when every host exited 0.
std::string failure_summary(const std::vector<std::string>& labels,
                            const std::vector<HostResult>& results);

}  // namespace pdx
