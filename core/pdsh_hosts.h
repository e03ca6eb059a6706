#pragma once
// pdsh 2.34's target list, for pdx started as pdsh (cmd/pdsh.cpp): its -w and -x terms, its
// WCOLL files with `#include`, and the folded form its -q prints. Unlike pdx's own host lists
// (core/hostset.h), a host named twice is run twice, as pdsh runs it.
//
//   -w n[1-4],n1            n1 n2 n3 n4 n1 (kept in order, duplicates kept)
//   -w ^FILE   -w -         hosts from a file, or from stdin (one or more per line, '#' comments,
//                           "#include FILE" in the first column)
//   -w /REGEX/ -x /REGEX/   keep only / drop the hosts an extended regex matches (after -x)
//   -w -TERM   -x TERM      drop the hosts TERM names (the first occurrence of each, as pdsh)
//   -w exec:n1 -w ssh:u@n2  rcmd module and user for those hosts
//   -w 'h[1-2'              a bracket never closed: a literal host name, as pdsh reads it
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace pdx {

struct PdshTarget {
  std::string name;
  std::string user;  // "" unless written user@host
  std::string rcmd;  // "" unless written rcmd:host
};

/// The hosts of `include` (each a -w argument) minus `exclude` (-x arguments), then filtered by
/// their regexes; WCOLL's file when `include` names no host (only regexes or exclusions). `in`
/// is what "-" reads. Empty when nothing named a host. Throws UsageError for a bad range
/// (n[5-1]), regex, or a file that cannot be read, naming it.
std::vector<PdshTarget> pdsh_targets(const std::vector<std::string>& include,
                                     const std::vector<std::string>& exclude, std::istream& in);

/// A WCOLL file's hosts, "-" being `in`. "#include FILE" lines read FILE: as written when it
/// starts with '/', "./" or "../", else from the directory of `path` (the current one for
/// stdin). A file included twice is skipped with a warning on stderr, as pdsh does.
std::vector<PdshTarget> read_pdsh_wcoll(const std::string& path, std::istream& in);

/// `names` as pdsh -q prints them: runs of consecutive numbers of one prefix folded, in the
/// order given, ranges of one prefix next to each other sharing brackets:
/// n1,n2,n3,n5,m1,n1 -> n[1-3,5],m1,n1.
std::string pdsh_ranged_string(const std::vector<std::string>& names);

}  // namespace pdx
