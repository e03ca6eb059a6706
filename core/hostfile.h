#pragma once
// Hostfiles: one host per line; '#' starts a comment; blank lines skipped; the DeepSpeed/MPI form
// "host slots=8 max_slots=8" keeps slots. A line may itself be a host expression (node[1-4]).
#include <string>
#include <vector>

#include "core/hostset.h"

namespace pdx {

/// Read a hostfile. Throws UsageError naming the file (and line) when it is missing, unreadable,
/// empty of hosts, or holds a bad line.
std::vector<Host> read_hostfile(const std::string& path);

}  // namespace pdx
