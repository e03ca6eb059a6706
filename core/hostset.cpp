// Host expressions: terms, brackets, user@, :port, IPv6 literals, exclusions (syntax: hostset.h).
//
// An expression is parsed in three steps: split into terms at commas outside brackets; split
// each term into user, name pattern and port; expand the pattern's brackets. Sizes are computed
// from the brackets before anything is expanded, so a typo cannot allocate millions of names.
#include "core/hostset.h"
#include "core/padded_number.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <utility>

#include "base/error.h"
#include "base/strings.h"
#include "core/hostfile.h"

namespace pdx {
namespace {

// Numbers in brackets have at most 18 digits, so every value and count fits in uint64_t.
constexpr std::size_t kMaxDigits = 18;

/// s with bytes that are not printable ASCII shown as \xNN, so an error stays on one line.
std::string printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

std::string quoted(std::string_view s) {
  return "'" + printable(s) + "'";
}

[[noreturn]] void fail(const std::string& message) {
  throw UsageError(message);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/// Letters, digits, '-', '.', '_': what DNS, /etc/hosts and user names need, and nothing a shell
/// or ssh would read as syntax (these names end up on command lines).
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '.' ||
         c == '_';
}

/// Splits expr at commas outside brackets, trimming blanks; empty terms are skipped ("a,,b,").
/// Brackets must be balanced and not nested.
std::vector<std::string_view> split_terms(std::string_view expr) {
  std::vector<std::string_view> terms;
  auto push = [&](std::string_view term) {
    term = trim(term);
    if (!term.empty()) terms.push_back(term);
  };
  std::size_t start = 0;
  bool in_bracket = false;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    char c = expr[i];
    if (c == '[') {
      if (in_bracket) fail("nested '[' in " + quoted(expr));
      in_bracket = true;
    } else if (c == ']') {
      if (!in_bracket) fail("unbalanced ']' in " + quoted(expr));
      in_bracket = false;
    } else if (c == ',' && !in_bracket) {
      push(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  if (in_bracket) fail("unbalanced '[' in " + quoted(expr));
  push(expr.substr(start));
  return terms;
}

// ---- Bracket patterns -------------------------------------------------------------------------

struct Range {
  std::uint64_t lo = 0, hi = 0;
  std::size_t width = 0;   // zero-padded to this many digits; 0: not padded
  std::uint64_t step = 1;  // lo, lo + step, ... up to hi (ClusterShell's N-M/S)

  std::uint64_t count() const { return (hi - lo) / step + 1; }
};

/// A piece of a name pattern: literal text, or (when ranges is not empty) one bracket.
struct Segment {
  std::string_view text;
  std::vector<Range> ranges;
  std::uint64_t count = 1;  // names this segment contributes
};

using Pattern = std::vector<Segment>;

bool all_digits(std::string_view text) {
  return !text.empty() && text.size() <= kMaxDigits &&
         std::all_of(text.begin(), text.end(), is_digit);
}

std::uint64_t to_number(std::string_view digits) {
  std::uint64_t value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return value;
}

std::uint64_t parse_number(std::string_view digits, std::string_view item, std::string_view term) {
  if (!all_digits(digits)) {
    fail("bad range " + quoted(item) + " in " + quoted(term) +
         " (expected N, N-M or N-M/S, numbers of at most 18 digits)");
  }
  return to_number(digits);
}

/// The S of "N-M/S": a number from 1, and only after a range.
std::uint64_t parse_step(std::string_view text, bool single, std::string_view item,
                         std::string_view term) {
  std::string written = "'/" + printable(text) + "'";
  if (!all_digits(text) || to_number(text) == 0) {
    fail("bad step " + written + " in " + quoted(term) +
         " (expected N-M/S, S a number from 1 of at most 18 digits)");
  }
  if (single) {
    fail("step " + written + " after the single number " + quoted(item.substr(0, item.find('/'))) +
         " in " + quoted(term) + " (a step needs a range: N-M/S)");
  }
  return to_number(text);
}

/// Written with a leading zero, so it sets the width: "08", "00" (not "0" or "8").
bool is_padded(std::string_view digits) {
  return digits.size() > 1 && digits[0] == '0';
}

/// r written with every number padded to `digits` digits: one reading of a range whose bounds are
/// padded differently. Padding leaves longer numbers as they are, so they get a range of their own:
/// 09-100 padded to 2 digits is 09-99,100 (pdsh's reading).
std::string padded_to(const Range& r, std::size_t digits) {
  std::size_t width = digits > 1 ? digits : 0;
  std::uint64_t last = r.lo + (r.hi - r.lo) / r.step * r.step;
  std::uint64_t widest = 1;  // 10^digits, the first number with more digits (at most 10^18)
  for (std::size_t i = 0; i < digits; ++i) widest *= 10;
  std::string out;
  if (width > 0 && last >= widest) {
    std::uint64_t below = r.lo + (widest - 1 - r.lo) / r.step * r.step;
    append_range(out, r.lo, below, r.step, width);
    out += ',';
    append_range(out, below + r.step, last, r.step, 0);
  } else {
    append_range(out, r.lo, last, r.step, width);
  }
  return out;
}

/// term with its bracket item replaced by `with`; a bracket left holding one number goes away.
std::string term_with(std::string_view term, std::string_view item, const std::string& with) {
  auto at = static_cast<std::size_t>(item.data() - term.data());
  auto end = at + item.size();
  if (term[at - 1] == '[' && term[end] == ']' && with.find_first_of(",-") == std::string::npos) {
    --at;
    ++end;
  }
  return printable(std::string(term.substr(0, at)) + with + std::string(term.substr(end)));
}

/// pdsh pads such a range to its low bound's digits, pdx did to the wider bound's, ClusterShell
/// refuses it: so does pdx, showing both readings.
[[noreturn]] void fail_padding(const Range& r, std::string_view lo_text, std::string_view hi_text,
                               std::string_view item, std::string_view term) {
  fail(quoted(term) + ": the bounds are padded differently (" + printable(lo_text) + " has " +
       std::to_string(lo_text.size()) + (lo_text.size() == 1 ? " digit, " : " digits, ") +
       printable(hi_text) + " has " + std::to_string(hi_text.size()) + "): write " +
       term_with(term, item, padded_to(r, std::max(lo_text.size(), hi_text.size()))) + " or " +
       term_with(term, item, padded_to(r, std::min(lo_text.size(), hi_text.size()))));
}

/// One comma-separated item of a bracket: "7", "01-64", "1-10/2".
Range parse_range(std::string_view item, std::string_view term) {
  constexpr auto npos = std::string_view::npos;
  if (item.empty()) fail("empty range in " + quoted(term));
  auto slash = item.find('/');
  std::string_view bounds = item.substr(0, slash);
  auto dash = bounds.find('-');
  std::string_view lo_text = bounds.substr(0, dash);
  std::string_view hi_text = dash == npos ? lo_text : bounds.substr(dash + 1);
  Range r{parse_number(lo_text, item, term), parse_number(hi_text, item, term), 0, 1};
  if (slash != npos) r.step = parse_step(item.substr(slash + 1), dash == npos, item, term);
  if (r.lo > r.hi) fail("reversed range " + quoted(item) + " in " + quoted(term));
  // A bound written with a leading zero sets the width (pdsh, nodeset): [08-10] -> 08 09 10. Then
  // both bounds must have its digits, as ClusterShell requires: [8-012] reads two ways.
  if (is_padded(lo_text) || is_padded(hi_text)) {
    if (lo_text.size() != hi_text.size()) fail_padding(r, lo_text, hi_text, item, term);
    r.width = lo_text.size();
  }
  return r;
}

[[noreturn]] void fail_too_many(std::string_view term) {
  fail(quoted(term) + " names more than " + std::to_string(kMaxHosts) + " hosts");
}

Segment parse_bracket(std::string_view inside, std::string_view term) {
  if (trim(inside).empty()) fail("empty brackets in " + quoted(term));
  Segment seg;
  seg.count = 0;
  std::size_t start = 0;
  while (start <= inside.size()) {
    auto comma = inside.find(',', start);
    if (comma == std::string_view::npos) comma = inside.size();
    Range r = parse_range(inside.substr(start, comma - start), term);
    // Checked before adding so neither the sum nor a later product can overflow.
    if (r.count() > kMaxHosts || seg.count + r.count() > kMaxHosts) fail_too_many(term);
    seg.count += r.count();
    seg.ranges.push_back(r);
    start = comma + 1;
  }
  return seg;
}

Segment literal(std::string_view text) {
  return Segment{text, {}, 1};
}

/// Splits a term into literal text and brackets; a bracket holding ':' is an IPv6 literal and
/// stays text. Throws when the term would name more than kMaxHosts names.
Pattern parse_pattern(std::string_view term) {
  constexpr auto npos = std::string_view::npos;
  Pattern pattern;
  std::uint64_t total = 1;
  std::size_t pos = 0;
  while (pos < term.size()) {
    auto open = term.find_first_of("[]", pos);
    if (open == npos) {
      pattern.push_back(literal(term.substr(pos)));
      break;
    }
    if (term[open] == ']') fail("unbalanced ']' in " + quoted(term));
    auto close = term.find_first_of("[]", open + 1);
    if (close == npos) fail("unbalanced '[' in " + quoted(term));
    if (term[close] == '[') fail("nested '[' in " + quoted(term));
    std::string_view inside = term.substr(open + 1, close - open - 1);
    if (inside.find(':') != npos) {
      pattern.push_back(literal(term.substr(pos, close + 1 - pos)));
    } else {
      if (open > pos) pattern.push_back(literal(term.substr(pos, open - pos)));
      Segment seg = parse_bracket(inside, term);
      if (total > kMaxHosts / seg.count) fail_too_many(term);
      total *= seg.count;
      pattern.push_back(std::move(seg));
    }
    pos = close + 1;
  }
  return pattern;
}

/// Every name of the pattern, leftmost bracket varying slowest (rack1-node1, rack1-node2, ...).
std::vector<std::string> expand_pattern(const Pattern& pattern) {
  std::vector<std::string> names{std::string()};
  for (const Segment& seg : pattern) {
    if (seg.ranges.empty()) {
      for (auto& name : names) name += seg.text;
      continue;
    }
    std::vector<std::string> next;
    next.reserve(names.size() * seg.count);
    for (const auto& name : names) {
      for (const Range& r : seg.ranges) {
        for (std::uint64_t i = 0, n = r.count(); i < n; ++i) {
          append_number(next.emplace_back(name), r.lo + i * r.step, r.width);
        }
      }
    }
    names = std::move(next);
  }
  return names;
}

// ---- Host terms -------------------------------------------------------------------------------

/// A term without its '-' or '^': [user@]pattern[:port], [user@][v6][:port], [user@]v6.
struct HostTerm {
  std::string_view user;
  std::vector<std::string> names;
  int port = 0;
};

int parse_port(std::string_view text, std::string_view term) {
  int port = 0;
  bool ok = !text.empty() && text.size() <= 5;
  for (char c : text) ok = ok && is_digit(c);
  if (ok) std::from_chars(text.data(), text.data() + text.size(), port);
  if (!ok || port < 1 || port > 65535) {
    fail("bad port " + quoted(text) + " in " + quoted(term) + " (expected 1-65535)");
  }
  return port;
}

void check_name_chars(std::string_view text, std::string_view what, std::string_view term) {
  if (text.empty()) fail("empty " + std::string(what) + " in " + quoted(term));
  // A leading '-' would reach ssh and the shell as an option.
  if (text[0] == '-') fail(std::string(what) + " " + quoted(text) + " starts with '-'");
  bool in_bracket = false;
  for (char c : text) {
    if (c == '[' || c == ']') {
      in_bracket = c == '[';
    } else if (!in_bracket && !is_name_char(c)) {
      fail("illegal character " + quoted(std::string_view(&c, 1)) + " in " + std::string(what) +
           " " + quoted(term) + " (use letters, digits, '-', '.', '_')");
    }
  }
}

/// An IPv6 address, optionally with a zone: fe80::1%eth0.
void check_ipv6(std::string_view addr, std::string_view term) {
  auto percent = addr.find('%');
  std::string address(addr.substr(0, percent));
  in6_addr parsed;
  if (inet_pton(AF_INET6, address.c_str(), &parsed) != 1) {
    fail("bad IPv6 address " + quoted(addr) + " in " + quoted(term));
  }
  if (percent != std::string_view::npos) {
    check_name_chars(addr.substr(percent + 1), "IPv6 zone", term);
  }
}

HostTerm parse_host_term(std::string_view term) {
  HostTerm t;
  std::string_view rest = term;
  if (auto at = rest.find('@'); at != std::string_view::npos) {
    t.user = rest.substr(0, at);
    check_name_chars(t.user, "user", term);
    rest = rest.substr(at + 1);
  }
  if (rest.starts_with('[')) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) fail("unbalanced '[' in " + quoted(term));
    std::string_view inside = rest.substr(1, close - 1);
    if (inside.find(':') != std::string_view::npos) {  // [v6] or [v6]:port
      check_ipv6(inside, term);
      std::string_view after = rest.substr(close + 1);
      if (!after.empty()) {
        if (after[0] != ':') fail("unexpected " + quoted(after) + " after ']' in " + quoted(term));
        t.port = parse_port(after.substr(1), term);
      }
      t.names.emplace_back(inside);
      return t;
    }
  }
  auto colons = std::count(rest.begin(), rest.end(), ':');
  if (colons >= 2) {  // a bare IPv6 address has no room for a port: write [v6]:port
    check_ipv6(rest, term);
    t.names.emplace_back(rest);
    return t;
  }
  std::string_view name = rest;
  if (colons == 1) {
    auto colon = rest.find(':');
    name = rest.substr(0, colon);
    t.port = parse_port(rest.substr(colon + 1), term);
  }
  check_name_chars(name, "host name", term);
  t.names = expand_pattern(parse_pattern(name));
  return t;
}

/// The hosts of a hostfile (a `^FILE` term, $WCOLL): each line's expression expanded, its slots
/// kept, the first appearance of a host kept.
std::vector<Host> hostfile_hosts(const std::string& path) {
  HostList hosts;
  read_hostfile(path, [&](const HostfileLine& line) {
    std::vector<Host> line_hosts;
    try {
      line_hosts = expand_hosts(line.hosts);
    } catch (const UsageError& e) {
      throw UsageError(line.where + ": " + e.what());
    }
    for (Host& host : line_hosts) {
      host.slots = line.slots;
      hosts.add(std::move(host), path);
    }
  });
  return hosts.take();
}

/// Adds the hosts of expr to include, and those of its "-TERM"s to exclude (when given; -x
/// expressions pass none, as excluding from an exclusion means nothing).
void parse_expression(std::string_view expr, HostList& include, HostList* exclude) {
  for (std::string_view term : split_terms(expr)) {
    HostList* target = &include;
    if (term.starts_with('-')) {
      if (exclude == nullptr) fail("exclusion " + quoted(term) + " inside an exclusion");
      target = exclude;
      term = trim(term.substr(1));
      if (term.empty()) fail("nothing to exclude after '-' in " + quoted(expr));
    }
    if (term.starts_with('^')) {
      std::string path(trim(term.substr(1)));
      if (path.empty()) fail("missing file name after '^' in " + quoted(expr));
      for (Host& host : hostfile_hosts(path)) target->add(std::move(host), expr);
      continue;
    }
    HostTerm t = parse_host_term(term);
    for (std::string& name : t.names) {
      target->add(Host{std::move(name), std::string(t.user), t.port, 0}, expr);
    }
  }
}

/// An exclusion without user or port removes the host whatever its user and port (-x node05
/// removes root@node05:2222); one that gives them removes only that exact host.
bool is_excluded(const Host& h, const HostList& exclude) {
  return exclude.contains(h.user, h.name, h.port) || exclude.contains("", h.name, h.port) ||
         exclude.contains(h.user, h.name, 0) || exclude.contains("", h.name, 0);
}

std::vector<Host> without(HostList& include, const HostList& exclude) {
  std::vector<Host> hosts = include.take();
  if (exclude.size() > 0) {
    std::erase_if(hosts, [&](const Host& h) { return is_excluded(h, exclude); });
  }
  return hosts;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(trim(value));
}

}  // namespace

// ---- Public interface -------------------------------------------------------------------------

std::string Host::label() const {
  std::string at = user.empty() ? "" : user + "@";
  if (port == 0) return at + name;
  if (name.find(':') != std::string::npos) return at + "[" + name + "]:" + std::to_string(port);
  return at + name + ":" + std::to_string(port);
}

namespace {

std::size_t host_hash(std::string_view user, std::string_view name, int port) {
  std::size_t h = std::hash<std::string_view>{}(name);
  if (!user.empty()) h ^= std::hash<std::string_view>{}(user) + 0x9e3779b97f4a7c15ULL + (h << 6);
  return h ^ (static_cast<std::size_t>(port) * 0x9e3779b97f4a7c15ULL);
}

}  // namespace

std::size_t HostList::find_slot(std::string_view user, std::string_view name, int port,
                                std::size_t hash) const {
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    std::uint32_t slot = slots_[i];
    if (slot == 0) return i;
    if (hashes_[slot - 1] == hash) {
      const Host& h = hosts_[slot - 1];
      if (h.port == port && h.name == name && h.user == user) return i;
    }
  }
}

void HostList::grow() {
  // Kept at most half full, so probes stay short and always reach an empty slot.
  slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), 0);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t k = 0; k < hosts_.size(); ++k) {
    std::size_t i = hashes_[k] & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = static_cast<std::uint32_t>(k + 1);
  }
}

bool HostList::contains(std::string_view user, std::string_view name, int port) const {
  if (slots_.empty()) return false;
  return slots_[find_slot(user, name, port, host_hash(user, name, port))] != 0;
}

void HostList::add(Host host, std::string_view source) {
  if (2 * (hosts_.size() + 1) > slots_.size()) grow();
  std::size_t hash = host_hash(host.user, host.name, host.port);
  std::size_t slot = find_slot(host.user, host.name, host.port, hash);
  if (slots_[slot] != 0) return;
  if (hosts_.size() >= kMaxHosts) fail_too_many(source);
  hosts_.push_back(std::move(host));
  hashes_.push_back(hash);
  slots_[slot] = static_cast<std::uint32_t>(hosts_.size());
}

std::vector<Host> HostList::take() {
  slots_.clear();
  hashes_.clear();
  return std::exchange(hosts_, {});
}

std::vector<std::string> expand_names(std::string_view expr) {
  HostList names;  // for its order-keeping, duplicate-dropping, limited index
  for (std::string_view term : split_terms(expr)) {
    for (std::string& name : expand_pattern(parse_pattern(term))) {
      names.add(Host{std::move(name), {}, 0, 0}, expr);
    }
  }
  if (names.size() == 0) fail("empty host expression");
  std::vector<std::string> out;
  out.reserve(names.size());
  for (Host& host : names.take()) out.push_back(std::move(host.name));
  return out;
}

std::vector<Host> expand_hosts(std::string_view expr) {
  HostList include, exclude;
  parse_expression(expr, include, &exclude);
  bool named_any = include.size() > 0;
  std::vector<Host> hosts = without(include, exclude);
  if (!named_any) fail(quoted(expr) + " names no hosts");
  if (hosts.empty()) fail("every host of " + quoted(expr) + " is excluded");
  return hosts;
}

std::vector<Host> resolve_hosts(const std::vector<std::string>& include,
                                const std::vector<std::string>& exclude) {
  HostList included, excluded;
  if (!include.empty()) {
    for (const auto& expr : include) {
      if (split_terms(expr).empty()) fail("empty host expression given to -w");
      parse_expression(expr, included, &excluded);
    }
  } else if (std::string hosts = env("PDX_HOSTS"); !hosts.empty()) {
    parse_expression(hosts, included, &excluded);
  } else if (std::string wcoll = env("WCOLL"); !wcoll.empty()) {
    for (Host& host : hostfile_hosts(wcoll)) included.add(std::move(host), wcoll);
  } else {
    fail("no hosts: use -w, PDX_HOSTS or WCOLL");
  }
  for (const auto& expr : exclude) {
    if (split_terms(expr).empty()) fail("empty host expression given to -x");
    parse_expression(expr, excluded, nullptr);
  }
  if (included.size() == 0) fail("no hosts: the host expressions only exclude");
  std::vector<Host> hosts = without(included, excluded);
  if (hosts.empty()) fail("no hosts left: every host is excluded");
  return hosts;
}

}  // namespace pdx
