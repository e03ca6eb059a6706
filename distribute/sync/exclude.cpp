#include "distribute/sync/exclude.h"

#include <fnmatch.h>

#include <algorithm>

namespace pdx {

namespace {

bool fits(const std::string& pattern, std::string_view name) {
  return ::fnmatch(pattern.c_str(), std::string(name).c_str(), FNM_PATHNAME) == 0;
}

}  // namespace

Result<ExcludeRules> ExcludeRules::parse(const std::vector<std::string>& patterns) {
  ExcludeRules rules;
  for (const auto& typed : patterns) {
    Rule rule;
    std::string_view p = typed;
    rule.anchored = p.starts_with('/');
    if (rule.anchored) p.remove_prefix(1);
    rule.directory_only = p.ends_with('/');
    while (p.ends_with('/')) p.remove_suffix(1);
    if (p.empty() || p.starts_with('/'))
      return Error{"--exclude '" + typed + "': not a pattern of a name", ErrorKind::bad_input};
    rule.has_slash = p.find('/') != std::string_view::npos;
    rule.pattern = std::string(p);
    rules.rules_.push_back(std::move(rule));
  }
  return rules;
}

bool ExcludeRules::matches(std::string_view name, bool directory) const {
  std::string_view last = name.substr(name.rfind('/') + 1);  // npos + 1 == 0
  return std::any_of(rules_.begin(), rules_.end(), [&](const Rule& rule) {
    if (rule.directory_only && !directory) return false;
    if (rule.anchored) return fits(rule.pattern, name);
    if (!rule.has_slash) return fits(rule.pattern, last);
    for (std::size_t at = 0;;) {  // each ending of the name that starts a component
      if (fits(rule.pattern, name.substr(at))) return true;
      std::size_t slash = name.find('/', at);
      if (slash == std::string_view::npos) return false;
      at = slash + 1;
    }
  });
}

bool ExcludeRules::hidden(std::string_view name, bool directory) const {
  if (rules_.empty() || name.empty()) return false;
  for (std::size_t slash = name.find('/'); slash != std::string_view::npos;
       slash = name.find('/', slash + 1))
    if (matches(name.substr(0, slash), true)) return true;
  return matches(name, directory);
}

}  // namespace pdx
