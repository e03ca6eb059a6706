#include "transport/ssh_config.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "base/read_file.h"
#include "base/strings.h"

namespace pdx {
namespace {

constexpr int kMaxIncludeDepth = 16;  // as ssh's READCONF_MAX_DEPTH

/// `Key Value`, `Key=Value`, `Key = Value`. False for a line that has no keyword.
bool split_line(std::string_view line, std::string& keyword, std::string& value) {
  line = trim(line);
  if (line.empty() || line.front() == '#') return false;
  std::size_t end = 0;
  while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end])) &&
         line[end] != '=')
    ++end;
  keyword = lower_case(line.substr(0, end));
  std::string_view rest = trim(line.substr(end));
  if (!rest.empty() && rest.front() == '=') rest = trim(rest.substr(1));
  value = std::string(rest);
  return !keyword.empty();
}

/// fnmatch(3) for the two wildcards ssh_config knows.
bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool parse_seconds(std::string_view v, std::chrono::seconds& out) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 0) return false;
  out = std::chrono::seconds(n);
  return true;
}

}  // namespace

bool parse_ssh_time(std::string_view v, std::chrono::seconds& out) {
  long long total = 0;
  if (v.empty()) return false;
  while (!v.empty()) {
    long long n = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || n < 0 || n > 100000000) return false;
    v.remove_prefix(static_cast<std::size_t>(ptr - v.data()));
    long long unit = 1;
    if (!v.empty()) {
      auto at = std::string_view("sSmMhHdDwW").find(v.front());
      if (at == std::string_view::npos) return false;
      constexpr long long kUnits[] = {1, 60, 3600, 86400, 604800};
      unit = kUnits[at / 2];
      v.remove_prefix(1);
    }
    total += n * unit;
  }
  out = std::chrono::seconds(total);
  return true;
}

namespace {

bool parse_port(std::string_view v, int& out) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 1 || n > 65535) return false;
  out = n;
  return true;
}

/// ServerAliveCountMax: a count, 0 or more.
bool parse_count(std::string_view v, int& out) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 0 || n > 1000000) return false;
  out = n;
  return true;
}

/// Values of the keywords pdx checks, so that a bad `-o` is a usage error, not a surprise later.
Result<void> validate(const std::string& keyword, const std::string& value) {
  if (value.empty()) return Error{"ssh option '" + keyword + "' has no value"};
  int port;
  std::chrono::seconds seconds;
  if (keyword == "port" && !parse_port(value, port)) return Error{"bad ssh Port '" + value + "'"};
  if (keyword == "connecttimeout" && !parse_seconds(value, seconds))
    return Error{"bad ssh ConnectTimeout '" + value + "' (seconds)"};
  static const char* const kPolicies[] = {"yes", "no", "off", "accept-new", "ask"};
  if (keyword == "proxyjump" && lower_case(value) != "none") TRY(parse_jumps(value));
  if (keyword == "proxycommand") {
    for (std::size_t at = value.find('%'); at != std::string::npos; at = value.find('%', at + 2))
      if (at + 1 == value.size() ||
          std::string_view("hprn%").find(value[at + 1]) == std::string_view::npos)
        return Error{"ssh ProxyCommand token '" + value.substr(at, 2) +
                     "' is not one pdx expands (%h %p %r %n %%)"};
  }
  if (keyword == "controlmaster" &&
      std::string_view("yes no auto ask autoask").find(lower_case(value)) == std::string_view::npos)
    return Error{"bad ssh ControlMaster '" + value + "' (yes, no, auto)"};
  if (keyword == "controlpersist" && lower_case(value) != "yes" && lower_case(value) != "no" &&
      !parse_ssh_time(value, seconds))
    return Error{"bad ssh ControlPersist '" + value + "' (yes, no, or a time: 600, 10m)"};
  int count;
  if (keyword == "serveraliveinterval" && !parse_ssh_time(value, seconds))
    return Error{"bad ssh ServerAliveInterval '" + value + "' (a time: 15, 1m)"};
  if (keyword == "serveralivecountmax" && !parse_count(value, count))
    return Error{"bad ssh ServerAliveCountMax '" + value + "' (a count: 3)"};
  if (keyword == "proxyusefdpass" && lower_case(value) == "yes")
    return Error{
        "ssh ProxyUseFdpass is not supported by pdx; remove it (pdx reads the "
        "ProxyCommand's output itself)"};
  if (keyword == "stricthostkeychecking" &&
      std::none_of(std::begin(kPolicies), std::end(kPolicies),
                   [&](const char* p) { return lower_case(value) == p; }))
    return Error{"bad ssh StrictHostKeyChecking '" + value + "' (yes, accept-new, no, ask)"};
  return {};
}

/// The keywords whose first value wins, and where each goes (false: the value is unusable).
struct FirstWins {
  std::string_view keyword;
  bool (*set)(const std::string& value, HostConfig& c);
};
constexpr FirstWins kFirstWins[] = {
    {"hostname", [](const std::string& v, HostConfig& c) { return c.hostname = v, true; }},
    {"user", [](const std::string& v, HostConfig& c) { return c.user = v, true; }},
    {"port", [](const std::string& v, HostConfig& c) { return parse_port(v, c.port); }},
    {"identitiesonly",
     [](const std::string& v, HostConfig& c) {
       return c.identities_only = lower_case(v) == "yes", true;
     }},
    {"hashknownhosts",
     [](const std::string& v, HostConfig& c) {
       return c.hash_known_hosts = lower_case(v) == "yes", true;
     }},
    {"stricthostkeychecking",
     [](const std::string& v, HostConfig& c) {
       return c.strict_host_key_checking = lower_case(v), true;
     }},
    {"userknownhostsfile",
     [](const std::string& v, HostConfig& c) {
       return c.user_known_hosts_files = split_words(v), true;
     }},
    {"globalknownhostsfile",
     [](const std::string& v, HostConfig& c) {
       return c.global_known_hosts_files = split_words(v), true;
     }},
    {"connecttimeout",
     [](const std::string& v, HostConfig& c) { return parse_seconds(v, c.connect_timeout); }},
    {"kexalgorithms",
     [](const std::string& v, HostConfig& c) { return c.kex_algorithms = v, true; }},
    {"hostkeyalgorithms",
     [](const std::string& v, HostConfig& c) { return c.host_key_algorithms = v, true; }},
    {"ciphers", [](const std::string& v, HostConfig& c) { return c.ciphers = v, true; }},
    {"macs", [](const std::string& v, HostConfig& c) { return c.macs = v, true; }},
    {"controlmaster",
     [](const std::string& v, HostConfig& c) { return c.control_master = lower_case(v), true; }},
    {"controlpersist",
     [](const std::string& v, HostConfig& c) {
       std::chrono::seconds t{0};
       if (lower_case(v) == "no") return true;
       if (lower_case(v) != "yes" && !parse_ssh_time(v, t)) return false;
       return c.control_persist = t, true;
     }},
    {"controlpath", [](const std::string& v, HostConfig& c) { return c.control_path = v, true; }},
    {"serveraliveinterval",
     [](const std::string& v, HostConfig& c) {
       return parse_ssh_time(v, c.server_alive_interval);
     }},
    {"serveralivecountmax",
     [](const std::string& v, HostConfig& c) { return parse_count(v, c.server_alive_count_max); }},
};

}  // namespace

std::string lower_case(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string> split_words(std::string_view value) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, in_word = false;
  for (char c : value) {
    if (c == '"') {
      quoted = !quoted, in_word = true;
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear(), in_word = false;
    } else {
      word += c, in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

bool host_matches(std::string_view host, const std::vector<std::string>& patterns) {
  bool positive = false;
  for (const auto& pattern : patterns) {
    if (!pattern.empty() && pattern.front() == '!') {
      if (glob_match(std::string_view(pattern).substr(1), host)) return false;
    } else if (glob_match(pattern, host)) {
      positive = true;
    }
  }
  return positive;
}

std::string expand_tokens(std::string_view text, const TokenValues& v) {
  std::string out;
  if (text.size() >= 1 && text[0] == '~' && (text.size() == 1 || text[1] == '/')) {
    out = v.home;
    text.remove_prefix(1);
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    switch (text[++i]) {
      case 'd':
        out += v.home;
        break;
      case 'u':
        out += v.local_user;
        break;
      case 'h':
        out += v.remote_host;
        break;
      case 'r':
        out += v.remote_user;
        break;
      case 'n':
        out += v.alias;
        break;
      case 'p':
        out += std::to_string(v.port);
        break;
      case '%':
        out += '%';
        break;
      default:
        out += '%', out += text[i];
    }
  }
  return out;
}

Result<void> SshConfig::add_option(std::string_view option) {
  std::string keyword, value;
  if (!split_line(option, keyword, value) || value.empty())
    return Error{"bad ssh option '" + std::string(option) + "' (expected Key=Value)"};
  TRY(validate(keyword, value));
  // Options go before all file entries: the first value wins, so they override the files.
  auto pos = std::find_if(entries_.begin(), entries_.end(),
                          [](const Entry& e) { return e.keyword.empty(); });
  entries_.insert(pos, Entry{{}, keyword, value});
  index();
  return {};
}

Result<void> SshConfig::add_file(const std::string& path, bool user_file) {
  auto text = read_text_file(path, IfMissing::empty);
  if (!text) return Error{"cannot read ssh config " + path + ": " + text.error()};
  return add_text(*text, path, user_file);
}

Result<void> SshConfig::add_text(std::string_view text, const std::string& origin, bool user_file) {
  // A marker entry ends the -o section: every option added later still goes before the files.
  entries_.push_back(Entry{{}, "", ""});
  auto parsed = parse(text, origin, user_file, {}, 0);
  index();
  return parsed;
}

// A cluster's config may hold a Host block per node, and every node looks itself up: an entry
// under one Host line of plain names is found by name, the others are matched one by one.
void SshConfig::index() {
  by_name_.clear();
  scanned_.clear();
  auto plain = [](const std::string& p) { return p.find_first_of("*?!") == std::string::npos; };
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const auto& conditions = entries_[i].conditions;
    if (entries_[i].keyword.empty()) continue;  // a marker
    if (conditions.size() != 1 || !std::all_of(conditions[0].begin(), conditions[0].end(), plain)) {
      scanned_.push_back(i);
      continue;
    }
    for (const auto& name : conditions[0]) {
      auto& found = by_name_[name];
      if (found.empty() || found.back() != i) found.push_back(i);  // "Host a a" once
    }
  }
}

Result<void> SshConfig::parse(std::string_view text, const std::string& origin, bool user_file,
                              const std::vector<std::vector<std::string>>& outer, int depth) {
  auto conditions = outer;
  int line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    std::string keyword, value;
    if (!split_line(line, keyword, value)) continue;
    if (keyword == "host" || keyword == "match") {
      conditions = outer;
      auto words = split_words(lower_case(value));  // matched without case, as by ssh(1)
      // Only `Match all` is understood; any other Match block never applies.
      if (keyword == "match")
        words =
            lower_case(value) == "all" ? std::vector<std::string>{"*"} : std::vector<std::string>{};
      conditions.push_back(std::move(words));
    } else if (keyword == "include") {
      TRY(include(value, user_file, conditions, depth));
    } else if (auto ok = validate(keyword, value); !ok) {
      return Error{origin + ":" + std::to_string(line_no) + ": " + ok.error()};
    } else {
      entries_.push_back(Entry{conditions, keyword, value});
    }
  }
  return {};
}

Result<void> SshConfig::include(std::string_view value, bool user_file,
                                const std::vector<std::vector<std::string>>& conditions,
                                int depth) {
  if (depth >= kMaxIncludeDepth) return Error{"ssh config Include nested too deeply"};
  const char* home = std::getenv("HOME");
  for (auto& word : split_words(value)) {
    std::string pattern = expand_tokens(word, TokenValues{home ? home : "", "", "", "", "", 22});
    if (pattern.empty()) return Error{"ssh config Include with an empty file name"};
    if (pattern.front() != '/')
      pattern = (user_file ? std::string(home ? home : "") + "/.ssh/" : "/etc/ssh/") + pattern;
    glob_t g{};
    std::vector<std::string> paths;
    if (glob(pattern.c_str(), GLOB_MARK, nullptr, &g) == 0)  // GLOB_MARK: "dir/"
      paths.assign(g.gl_pathv, g.gl_pathv + g.gl_pathc);
    globfree(&g);
    for (const auto& path : paths) {
      if (path.back() == '/') continue;  // a directory among the matches: skipped, as by ssh
      auto text = read_text_file(path);
      if (!text) return Error{"cannot read ssh config " + path + ": " + text.error()};
      TRY(parse(*text, path, user_file, conditions, depth + 1));
    }
  }
  return {};
}

bool SshConfig::mentions(std::string_view keyword) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.keyword == keyword; });
}

HostConfig SshConfig::lookup(std::string_view given) const {
  const std::string host = lower_case(given);  // as ssh(1), before Host matching and %h
  HostConfig c;
  bool seen[std::size(kFirstWins)] = {};
  bool seen_proxy = false;  // ProxyJump and ProxyCommand share one slot: the first wins
  std::vector<std::size_t> applying;
  if (auto found = by_name_.find(host); found != by_name_.end()) applying = found->second;
  for (std::size_t i : scanned_) {
    const auto& conditions = entries_[i].conditions;
    if (std::all_of(conditions.begin(), conditions.end(),
                    [&](const auto& patterns) { return host_matches(host, patterns); }))
      applying.push_back(i);
  }
  std::sort(applying.begin(), applying.end());  // in file order: the first value wins
  for (std::size_t i : applying) {
    const Entry& e = entries_[i];
    if (e.keyword == "identityfile") {  // the one keyword pdx reads whose values add up
      c.identity_files.push_back(split_words(e.value).front());
      continue;
    }
    for (std::size_t k = 0; k < std::size(kFirstWins); ++k)
      if (!seen[k] && e.keyword == kFirstWins[k].keyword) seen[k] = kFirstWins[k].set(e.value, c);
    if (!seen_proxy && (e.keyword == "proxyjump" || e.keyword == "proxycommand")) {
      seen_proxy = true;
      if (lower_case(e.value) != "none")
        (e.keyword == "proxyjump" ? c.proxy_jump : c.proxy_command) = e.value;
    }
  }
  c.hostname = c.hostname.empty()
                   ? host
                   : lower_case(expand_tokens(c.hostname, TokenValues{"", "", host, "", "", 22}));
  return c;
}

Result<std::vector<JumpSpec>> parse_jumps(std::string_view value) {
  std::vector<JumpSpec> hops;
  std::string_view rest = trim(value);
  for (;;) {
    auto comma = rest.find(',');
    std::string_view hop = trim(rest.substr(0, comma));
    std::string bad = "bad ProxyJump hop '" + std::string(hop) + "'";
    if (hop.starts_with("ssh://")) hop.remove_prefix(6);
    if (hop.ends_with('/')) hop.remove_suffix(1);
    JumpSpec spec;
    if (auto at = hop.rfind('@'); at != std::string_view::npos) {
      spec.user = hop.substr(0, at);
      hop.remove_prefix(at + 1);
      if (spec.user.empty()) return Error{bad + " (empty user)"};
    }
    std::string_view port;
    if (hop.starts_with('[')) {  // [v6]:port
      auto close = hop.find(']');
      if (close == std::string_view::npos) return Error{bad + " (no ']')"};
      std::string_view after = hop.substr(close + 1);
      if (!after.empty() && (after.front() != ':' || after.size() == 1))
        return Error{bad + " (expected [address]:port)"};
      if (!after.empty()) port = after.substr(1);
      hop = hop.substr(1, close - 1);
    } else if (auto colon = hop.find(':'); colon != std::string_view::npos &&
                                           hop.find(':', colon + 1) == std::string_view::npos) {
      port = hop.substr(colon + 1);
      hop = hop.substr(0, colon);
    }
    spec.host = hop;
    if (spec.host.empty() || spec.host.find_first_of(" \t\"'") != std::string::npos)
      return Error{bad + " (expected [user@]host[:port])"};
    if (lower_case(spec.host) == "none") return Error{"ProxyJump none cannot be one hop of a list"};
    if (!port.empty() && !parse_port(port, spec.port)) return Error{bad + " (bad port)"};
    hops.push_back(std::move(spec));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return hops;
}

}  // namespace pdx
