#pragma once
// `pdx sync --exclude PATTERN`: rsync's basic exclude rules, matched against a name under DEST
// as the sources land there (distribute/push/push_plan.h: "src/a/b" for SRC "src", "a/b" for
// "src/"):
//
//   name       no '/' in it (but a trailing one): matches the last component, at any depth
//   /a/b       a leading '/': the whole name, anchored at the transfer root (DEST)
//   a/b        a '/' inside: the end of the name, on a component boundary ("a/b", "x/a/b")
//   dir/       a trailing '/': directories only
//
// '*' '?' '[...]' as fnmatch(3) with FNM_PATHNAME: a wildcard never matches a '/'. A name is
// hidden when it or a directory above it matches: an excluded directory is not descended into.
// Not rsync's: includes ('+', --include, --filter), '**', merge files, modifiers.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace pdx {

class ExcludeRules {
 public:
  /// The patterns as typed. An Error (ErrorKind::bad_input) for an empty one, or one that is
  /// only slashes.
  static Result<ExcludeRules> parse(const std::vector<std::string>& patterns);

  bool empty() const { return rules_.empty(); }
  /// Whether `name` itself (a directory or not) matches a rule.
  bool matches(std::string_view name, bool directory) const;
  /// Whether `name` or a directory above it matches: it is neither sent nor deleted.
  bool hidden(std::string_view name, bool directory) const;

 private:
  struct Rule {
    std::string pattern;  // without its leading and trailing '/'
    bool anchored = false;
    bool directory_only = false;
    bool has_slash = false;
  };
  std::vector<Rule> rules_;
};

}  // namespace pdx
