#pragma once
// dshbak: pdsh's "host: line" output grouped by host (what `pdsh ... | dshbak [-c]` prints,
// as the dshbak that ships with pdsh 2.34 does), for pdx started as `dshbak` (cmd/dshbak.cpp).
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pdx {

enum class Coalesce { yes, no };

class Dshbak {
 public:
  /// One input line, without its newline. "LABEL: text" (or "LABEL:text"; blanks around LABEL
  /// dropped) adds text to LABEL's output. A label holds no blanks and may hold ':' (host:port,
  /// IPv6): it ends at the first ": ", else at the first ':'. Other lines are ignored, as
  /// dshbak ignores them.
  void add_line(std::string_view line);

  /// Every host's lines under a header, hosts in order of their last number (node2 before
  /// node10), then name:
  ///   ----------------
  ///   node1
  ///   ----------------
  ///   text...
  /// Coalesce::yes: hosts with identical lines share one header, their names folded
  /// (node[1-3,7]).
  std::string format(Coalesce coalesce) const;

  /// Every host's lines, each ending in a newline, hosts in format()'s order: what dshbak -d
  /// writes to DIR/LABEL.
  struct HostLines {
    std::string label;
    std::string text;
  };
  std::vector<HostLines> per_host() const;

 private:
  std::vector<std::size_t> order() const;  // indexes of labels_, in format()'s order

  std::vector<std::string> labels_;              // in order of first appearance
  std::vector<std::vector<std::string>> lines_;  // lines_[i]: labels_[i]'s lines
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace pdx
