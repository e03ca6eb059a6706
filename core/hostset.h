#pragma once
// Host expressions (pdsh syntax) and the hosts they name.
//
//   node[01-64]            zero padding kept: node01 ... node64
//   node[1-3,7,10-12]      lists in brackets
//   rack[1-2]-node[01-04]  several brackets: cartesian product, left to right
//   a,b,c                  commas separate terms (commas inside brackets belong to the bracket)
//   ^FILE                  hosts from a hostfile (core/hostfile.h)
//   -TERM                  exclusion inside -w:  -w 'node[01-08],-node05'
//   user@host  host:port  user@[::1]:22  [fe80::1]
//
// All functions throw UsageError (core/error.h) with one line naming the bad part; none returns
// an empty set silently.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pdx {

struct Host {
  std::string name;  // hostname or address, IPv6 without brackets
  std::string user;  // empty unless written as user@host
  int port = 0;      // 0 unless written as host:port
  int slots = 0;     // from a DeepSpeed/MPI hostfile "host slots=8"; 0: not given

  /// How pdx names the host in output: name, or name:port / [v6]:port when a port was given.
  std::string label() const;
  /// Two hosts are the same when user, name and port are.
  bool operator==(const Host&) const = default;
};

/// Most hosts one expression may name (a typo like node[1-99999999] is an error, not a hang).
inline constexpr std::size_t kMaxHosts = 1'000'000;

/// Expand one -w style expression, in order of first appearance, duplicates dropped.
std::vector<Host> expand_hosts(std::string_view expr);

/// The hosts of the run: every -w expression (or $PDX_HOSTS, then $WCOLL as a file, when none),
/// minus every -x expression. Throws UsageError when no hosts are left or none were given.
std::vector<Host> resolve_hosts(const std::vector<std::string>& include,
                                const std::vector<std::string>& exclude);

/// Expand a bracket expression into plain names, without user/port parsing: "n[1-2]" -> n1 n2.
std::vector<std::string> expand_names(std::string_view expr);

/// Fold names into the shortest pdsh/nodeset form, sorted: node01,node02,node04 -> node[01-02,04].
/// Names sharing a prefix/suffix around their last number fold together; padding is kept apart.
/// Round trip: expand_names(fold_names(x)) is x sorted and deduplicated.
std::string fold_names(const std::vector<std::string>& names);

}  // namespace pdx
