#pragma once
// Hostfiles: one host per line; '#' starts a comment; blank lines skipped; the DeepSpeed/MPI form
// "host slots=8 max_slots=8" keeps slots. A line may itself be a host expression (node[1-4]),
// which core/hostset.h expands (a hostfile is read for its `^FILE` term and for $WCOLL).
#include <functional>
#include <string>
#include <string_view>

namespace pdx {

/// One line of a hostfile that names hosts.
struct HostfileLine {
  std::string_view hosts;  // a host expression, never holding '^'
  int slots = 0;           // from "slots=N"; 0: not given
  std::string where;       // "FILE:LINE", for errors
};

/// Reads a hostfile and calls each(line) for its host lines, in order; what each throws goes
/// through. Throws UsageError naming the file (and line) when it is missing, unreadable, empty
/// of hosts, or holds a bad line.
void read_hostfile(const std::string& path, const std::function<void(const HostfileLine&)>& each);

}  // namespace pdx
