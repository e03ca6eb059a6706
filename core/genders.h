#pragma once
// Hosts from a genders database (genders(5)), read through libgenders as pdsh 2.34's genders
// module reads it (pdx(1), Where the hosts come from):
//
//   -g QUERY,...  the hosts matching any QUERY (libgenders' attr, attr=val, ||, &&, --, ~, ( ))
//   -X QUERY,...  leave out the hosts matching any QUERY (and their alternate names)
//   -a / -A       every host of the database; -a leaves out those with pdsh_all_skip
//   -i            alternate names: hosts the database named are given by their `altname`
//                 unless -i, hosts named on -w by their altname only with -i
//   -F FILE       the database: FILE when it starts with / or ., else $PDSH_GENDERS_DIR
//   (/etc)/FILE;
//                 without -F $PDSH_GENDERS_FILE, else /etc/genders
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "core/hostset.h"

namespace pdx {

/// One loaded genders database. Queries do not change it; one thread at a time.
class Genders {
 public:
  /// Reads the database at path; an Error naming it when it is missing or malformed.
  static Result<Genders> load(const std::string& path);
  Genders(Genders&&) noexcept;
  Genders& operator=(Genders&&) noexcept;
  ~Genders();

  /// The nodes matching a libgenders query, sorted; "" matches every node. An Error
  /// (bad_input) for a query libgenders cannot parse.
  Result<std::vector<std::string>> query(const std::string& query) const;
  /// A node's altname, the node an altname stands for, or name itself (pdsh's -i).
  std::string other_name(const std::string& name) const;
  /// The value of attr on node, or on the node whose altname it is; nullopt when it has none.
  std::optional<std::string> value(const std::string& node, const std::string& attr) const;

 private:
  struct Handle;
  explicit Genders(std::unique_ptr<Handle> handle);
  void index_altnames() const;
  std::unique_ptr<Handle> handle_;
};

/// The database path pdsh reads for `file` (-F or $PDSH_GENDERS_FILE): as given when it starts
/// with / or ., else in $PDSH_GENDERS_DIR (default /etc).
std::string genders_path(std::string_view file);

/// The genders options of one run.
struct GendersOptions {
  std::vector<std::string> queries;   // -g, one query per comma-separated term
  std::vector<std::string> excludes;  // -X, and pdsh_all_skip for -a
  bool all = false;                   // -a or -A
  bool alternate = false;             // -i
  std::string file;                   // -F; empty: $PDSH_GENDERS_FILE, else "genders"
  bool given = false;                 // any of them: a database that cannot be read is an error

  /// Applies -g -X -a -A -i -F (`c`, its argument `arg`); false for any other letter.
  bool apply(char c, std::string_view arg);
};

/// The hosts of a run as pdsh picks them with its genders module: `resolve` (-w, else $WCOLL,
/// minus -x) given -w's expressions, or for -g/-a/-A without -w the database's hosts as one
/// expression; then filtered by -g, minus -X, under their alternate names when asked. A host's
/// pdsh_rcmd_type user (`[user@][rcmd]`) becomes its user unless -w named one. Without genders
/// options a database that cannot be read is passed over, as pdsh does. Throws UsageError (no
/// hosts, a bad query, -a with -g) and FatalError (database unreadable), and what resolve throws.
struct GendersHosts {
  std::vector<Host> hosts;
  std::map<std::string, std::vector<std::string>> rcmd_types;  // pdsh_rcmd_type's rcmd -> labels
  /// One warning per pdsh_rcmd_type rcmd other than the run's: pdx reaches a run's hosts one way.
  std::vector<std::string> warnings(std::string_view rcmd) const;
};
using HostResolver = std::function<std::vector<Host>(const std::vector<std::string>& include)>;
GendersHosts genders_hosts(const GendersOptions& genders, const std::vector<std::string>& include,
                           const HostResolver& resolve);

}  // namespace pdx
