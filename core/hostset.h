#pragma once
// Host expressions (pdsh syntax) and the hosts they name.
//
//   node[01-64]            zero padding kept: node01 ... node64
//   node[1-3,7,10-12]      lists in brackets
//   node[1-9/2]            step ranges (ClusterShell): node1 node3 ... node9
//   rack[1-2]-node[01-04]  several brackets: cartesian product, left to right
//   a,b,c                  commas separate terms (commas inside brackets belong to the bracket)
//   ^FILE                  hosts from a hostfile (core/hostfile.h)
//   -TERM                  exclusion inside -w:  -w 'node[01-08],-node05'   (also -^FILE)
//   user@host  host:port  user@[::1]:22  [fe80::1]  ::1 (two or more colons: an address, no port)
//
// All functions throw UsageError (base/error.h) with one line naming the bad part; none returns
// an empty set silently.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pdx {

struct Host {
  std::string name;  // hostname or address, IPv6 without brackets
  std::string user;  // empty unless written as user@host
  int port = 0;      // 0 unless written as host:port
  int slots = 0;     // from a DeepSpeed/MPI hostfile "host slots=8"; 0: not given

  /// How pdx names the host in output, as written on -w: [user@]name[:port] ([v6]:port). Two
  /// distinct hosts never share a label, so it names per-host files (--outdir) too.
  std::string label() const;
  /// Two hosts are the same when user, name and port are (slots do not count).
  bool operator==(const Host& other) const {
    return name == other.name && user == other.user && port == other.port;
  }
};

/// Most hosts one expression may name (a typo like node[1-99999999] is an error, not a hang).
inline constexpr std::size_t kMaxHosts = 1'000'000;

/// Expand one -w style expression, in order of first appearance, duplicates dropped.
std::vector<Host> expand_hosts(std::string_view expr);

/// The hosts of the run: every -w expression (or $PDX_HOSTS, then $WCOLL as a file, when none),
/// minus every -x expression. Throws UsageError when no hosts are left or none were given.
/// "-TERM" exclusions inside any -w apply to the hosts of all -w expressions.
std::vector<Host> resolve_hosts(const std::vector<std::string>& include,
                                const std::vector<std::string>& exclude);

/// Expand a bracket expression into plain names, without user/port parsing: "n[1-2]" -> n1 n2.
/// Commas separate terms; a bracket holding ':' is an IPv6 literal and stays as written.
/// Order of first appearance, duplicates dropped.
std::vector<std::string> expand_names(std::string_view expr);

/// Fold names into the shortest pdsh/nodeset form, sorted: node01,node02,node04 -> node[01-02,04].
/// Names sharing a prefix/suffix around their last number fold together; padding is kept apart.
/// In "name:port" only the name folds (127.0.0.[1-4]:2222); IPv6 addresses stay as they are.
/// With autostep N > 0 (nodeset --autostep), at least N single numbers of one width stepping
/// evenly fold into a step range: n1,n3,n5 -> n[1-5/2] (N of 1 or 2: any two); 0: no steps, as
/// pdsh writes (ranges only).
/// Round trip: expand_names(fold_names(x, n)) is x deduplicated, for any host labels x (names
/// holding ',' or brackets other than [v6] are not labels and are written out as they are).
std::string fold_names(const std::vector<std::string>& names, std::size_t autostep = 0);

/// An ordered set of hosts being built: order of first appearance, duplicates (same user, name,
/// port) dropped, never more than kMaxHosts. A flat hash index keeps a million adds well under a
/// second (std::unordered_set's node per host made it several times slower).
class HostList {
 public:
  /// Adds host unless already present; throws UsageError naming `source` past kMaxHosts.
  void add(Host host, std::string_view source);
  /// True when a host with this user, name and port was added.
  bool contains(std::string_view user, std::string_view name, int port) const;
  std::size_t size() const { return hosts_.size(); }
  /// The hosts, in order; the list is left empty.
  std::vector<Host> take();

 private:
  /// The slot holding this host, or the empty slot where it belongs.
  std::size_t find_slot(std::string_view user, std::string_view name, int port,
                        std::size_t hash) const;
  void grow();

  std::vector<Host> hosts_;
  std::vector<std::size_t> hashes_;   // hashes_[i] is the hash of hosts_[i]
  std::vector<std::uint32_t> slots_;  // open addressing, linear probing: 1 + index, 0 when empty
};

}  // namespace pdx
