// pdsh's target list rules (src/pdsh/opt.c, wcoll.c) and its hostlist_ranged_string
// (src/common/hostlist.c), for pdx started as pdsh.
#include "core/pdsh_hosts.h"

#include <regex.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "base/error.h"
#include "base/strings.h"
#include "core/hostset.h"

namespace pdx {

namespace {

// pdsh's list_split: tokens between separators, separators inside [] kept, empty ones dropped.
std::vector<std::string_view> split_outside_brackets(std::string_view text, std::string_view sep) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && sep.find(text[i]) != std::string_view::npos) ++i;
    if (i == text.size()) break;
    std::size_t start = i;
    int level = 0;
    while (i < text.size() && (level != 0 || sep.find(text[i]) == std::string_view::npos)) {
      if (text[i] == '[') ++level;
      if (text[i] == ']') --level;
      ++i;
    }
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

// One host term's names: brackets expanded; a bracket never closed is a literal name.
std::vector<std::string> expand_term(std::string_view term) {
  auto open = term.find('[');
  if (open == std::string_view::npos || term.find(']', open) == std::string_view::npos)
    return {std::string(term)};
  try {
    return expand_names(term);
  } catch (const UsageError& e) {
    throw UsageError("bad host range in '" + std::string(term) + "': " + e.what());
  }
}

class Regex {
 public:
  Regex(const std::string& pattern, bool exclude) : exclude_(exclude) {
    int rc = regcomp(&re_, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char msg[256];
      regerror(rc, &re_, msg, sizeof msg);
      throw UsageError(std::string(exclude ? "-x" : "-w") + " regex '/" + pattern + "/': " + msg);
    }
  }
  ~Regex() { regfree(&re_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  bool keeps(const std::string& name) const {
    bool matches = regexec(&re_, name.c_str(), 0, nullptr, 0) == 0;
    return matches != exclude_;
  }

 private:
  regex_t re_;
  bool exclude_;
};

// What the -w and -x terms add up to, applied in pdsh's order once all are read.
struct Targets {
  std::istream& in;
  std::optional<std::vector<PdshTarget>> hosts;  // nullopt: no -w term named a host
  std::map<std::string, std::size_t> excluded;   // name: how many of its first occurrences
  std::vector<std::unique_ptr<Regex>> regexes;
};

void add_names(std::string_view text, std::string_view rcmd, std::string_view user,
               std::vector<PdshTarget>& out) {
  for (auto& name : expand_term(text))
    out.push_back(PdshTarget{std::move(name), std::string(user), std::string(rcmd)});
}

// [rcmd:][user@]hosts, pdsh's get_host_rcmd_type: one ':' not doubled ends the rcmd module.
void add_host_term(std::string_view term, std::vector<PdshTarget>& out) {
  auto colon = term.find(':');
  auto at = term.find('@');
  if (colon != std::string_view::npos && at != std::string_view::npos && colon > at)
    throw UsageError("host '" + std::string(term) + "' is not of the form [rcmd:][user@]hosts");
  std::string_view rcmd, user, hosts = term;
  if (colon != std::string_view::npos && (colon + 1 == term.size() || term[colon + 1] != ':')) {
    rcmd = term.substr(0, colon);
    hosts = term.substr(colon + 1);
  }
  if (at != std::string_view::npos) {
    user = hosts.substr(0, hosts.find('@'));
    hosts = hosts.substr(hosts.find('@') + 1);
  }
  add_names(hosts, rcmd, user, out);
}

void add_term(std::string_view term, Targets& t) {
  bool excluded = term.starts_with('-');
  if (excluded) term.remove_prefix(1);
  while (!term.empty() && (term.front() == ' ' || term.front() == '\t')) term.remove_prefix(1);
  if (term.starts_with('^')) {
    auto hosts = read_pdsh_wcoll(std::string(term.substr(1)), t.in);
    if (excluded) {
      for (auto& host : hosts) ++t.excluded[std::move(host.name)];
    } else {
      if (!t.hosts) t.hosts.emplace();
      for (auto& host : hosts) t.hosts->push_back(std::move(host));
    }
  } else if (term.starts_with('/')) {
    term.remove_prefix(1);
    if (term.ends_with('/')) term.remove_suffix(1);
    t.regexes.push_back(std::make_unique<Regex>(std::string(term), excluded));
  } else if (excluded) {
    for (auto& name : expand_term(term)) ++t.excluded[std::move(name)];
  } else {
    if (!t.hosts) t.hosts.emplace();
    add_host_term(term, *t.hosts);
  }
}

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// pdsh's wcoll_ctx: the directory includes are looked up in, and the files read so far.
struct Wcoll {
  std::string directory;
  std::set<std::string> included;
  std::vector<PdshTarget> hosts;
};

void read_stream(std::istream& stream, Wcoll& w);

void read_included(const std::string& file, Wcoll& w) {
  std::string path = file;
  if (!file.starts_with('/') && !file.starts_with("./") && !file.starts_with("../"))
    path = w.directory + "/" + file;
  if (!w.included.insert(path).second) {
    std::fprintf(stderr, "pdx: warning: file '%s' included multiple times; read once\n",
                 file.c_str());
    return;
  }
  std::ifstream stream(path);
  if (!stream) throw UsageError("cannot read hostfile '" + path + "' (#include " + file + ")");
  read_stream(stream, w);
}

void read_line(std::string_view line, Wcoll& w) {
  if (line.starts_with("#include")) {
    auto words = split_blanks(line.substr(8));
    if (words.size() == 1)
      read_included(std::string(words[0]), w);
    else
      std::fprintf(stderr, "pdx: warning: ignoring invalid line: %.*s\n", int(line.size()),
                   line.data());
  }
  line = trim(line.substr(0, line.find('#')));
  if (line.empty()) return;
  for (auto term : split_outside_brackets(line, ", \t")) add_names(term, {}, {}, w.hosts);
}

void read_stream(std::istream& stream, Wcoll& w) {
  for (std::string line; std::getline(stream, line);) read_line(line, w);
  if (stream.bad()) throw UsageError("reading a hostfile failed");
}

// hostlist.c's hostrange: prefix, lo-hi, zero-padded width; single: a name with no number.
struct Range {
  std::string prefix;
  unsigned long lo = 0, hi = 0;
  int width = 0;
  bool single = true;
};

constexpr unsigned long kMaxSuffix = 1ul << 25;  // hostlist.c's MAX_HOST_SUFFIX

Range range_of(const std::string& name) {
  std::size_t end = name.find_last_not_of("0123456789") + 1;  // npos + 1 == 0
  Range r;
  r.prefix = name;
  if (end == name.size() || name.size() - end > 9) return r;
  unsigned long n = std::strtoul(name.c_str() + end, nullptr, 10);
  if (n > kMaxSuffix) return r;
  r = Range{name.substr(0, end), n, n, int(name.size() - end), false};
  return r;
}

int zero_padded(unsigned long num, int width) {
  int n = 1;
  while (num /= 10) ++n;
  return width > n ? width - n : 0;
}

// hostlist.c's _width_equiv: may adjust one width to the other.
bool width_equiv(unsigned long n, int& wn, unsigned long m, int& wm) {
  if (wn == wm) return true;
  int npad = zero_padded(n, wn), nmpad = zero_padded(n, wm);
  int mpad = zero_padded(m, wm), mnpad = zero_padded(m, wn);
  if (npad != nmpad && mpad != mnpad) return false;
  if (npad != nmpad) {
    wm = wn;
  } else {
    wn = wm;
  }
  return true;
}

bool same_bracket(const Range& a, const Range& b) {
  return a.prefix == b.prefix && !a.single && !b.single;
}

std::string numbers(const Range& r) {
  auto padded = [&](unsigned long n) {
    std::string s = std::to_string(n);
    return std::string(std::size_t(std::max(0, r.width - int(s.size()))), '0') + s;
  };
  return r.lo < r.hi ? padded(r.lo) + "-" + padded(r.hi) : padded(r.lo);
}

}  // namespace

std::vector<PdshTarget> read_pdsh_wcoll(const std::string& path, std::istream& in) {
  Wcoll w;
  if (path == "-") {
    w.directory = ".";
    read_stream(in, w);
    return std::move(w.hosts);
  }
  std::ifstream stream(path);
  if (!stream) throw UsageError("cannot read hostfile '" + path + "'");
  w.directory = directory_of(path);
  read_stream(stream, w);
  return std::move(w.hosts);
}

std::vector<PdshTarget> pdsh_targets(const std::vector<std::string>& include,
                                     const std::vector<std::string>& exclude, std::istream& in) {
  Targets t{in, {}, {}, {}};
  for (const auto& arg : include) {
    if (arg == "-") {
      add_term("^-", t);
      continue;
    }
    for (auto term : split_outside_brackets(arg, ",")) add_term(term, t);
  }
  for (const auto& arg : exclude)
    for (auto term : split_outside_brackets(arg, ",")) add_term("-" + std::string(term), t);
  if (!t.hosts) {
    const char* wcoll = std::getenv("WCOLL");
    if (!wcoll || !*wcoll) return {};
    t.hosts = read_pdsh_wcoll(wcoll, in);
  }
  std::vector<PdshTarget> hosts;
  for (auto& host : *t.hosts) {
    if (auto it = t.excluded.find(host.name); it != t.excluded.end() && it->second > 0) {
      --it->second;  // hostlist_delete: the first occurrence, once per name excluded
      continue;
    }
    if (!std::all_of(t.regexes.begin(), t.regexes.end(),
                     [&](const auto& re) { return re->keeps(host.name); }))
      continue;
    hosts.push_back(std::move(host));
  }
  return hosts;
}

std::string pdsh_ranged_string(const std::vector<std::string>& names) {
  std::vector<Range> ranges;  // hostlist_push_range: a host one past the last range extends it
  for (const auto& name : names) {
    Range r = range_of(name);
    if (!ranges.empty()) {
      Range& tail = ranges.back();
      if (tail.prefix == r.prefix && !tail.single && !r.single && tail.hi + 1 == r.lo &&
          width_equiv(tail.lo, tail.width, r.lo, r.width)) {
        tail.hi = r.hi;
        continue;
      }
    }
    ranges.push_back(std::move(r));
  }
  std::string out;
  for (std::size_t i = 0; i < ranges.size();) {
    if (!out.empty()) out += ',';
    const Range& first = ranges[i];
    bool bracket = (!first.single && first.lo < first.hi) ||
                   (i + 1 < ranges.size() && same_bracket(first, ranges[i + 1]));
    out += first.prefix;
    if (first.single) {
      ++i;
      continue;
    }
    if (bracket) out += '[';
    out += numbers(ranges[i]);
    for (++i; i < ranges.size() && same_bracket(ranges[i], ranges[i - 1]); ++i)
      out += "," + numbers(ranges[i]);
    if (bracket) out += ']';
  }
  return out;
}

}  // namespace pdx
