#include "cmd/pdsh_options.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "core/jobs.h"
#include "core/pdsh_hosts.h"
#include "transport/local_transport.h"

namespace pdx {

namespace {

constexpr double kMaxSeconds = 1e7;  // as pdx's -t and -u

double parse_number(std::string_view text, std::string_view what, double min, double max) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(std::string(what) + ": bad number '" + std::string(text) + "'");
  return value;
}

PdshRcmd parse_rcmd(std::string_view name) {
  if (name == "ssh") return PdshRcmd::ssh;
  if (name == "exec") return PdshRcmd::exec;
  throw UsageError("pdsh rcmd module '" + std::string(name) +
                   "' is not one pdx has; use ssh or exec");
}

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

std::chrono::milliseconds millis_of(double seconds) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(seconds));
}

}  // namespace

void read_reach_environment(PdshReach& o) {
  if (auto v = env("PDSH_RCMD_TYPE")) o.rcmd = parse_rcmd(v);
  if (auto v = env("FANOUT")) o.fanout = std::size_t(parse_number(v, "FANOUT", 1, 1e6));
  if (auto v = env("PDSH_CONNECT_TIMEOUT"))
    o.connect_timeout = parse_number(v, "PDSH_CONNECT_TIMEOUT", 0, kMaxSeconds);
  if (auto v = env("PDSH_COMMAND_TIMEOUT"))
    o.command_timeout = parse_number(v, "PDSH_COMMAND_TIMEOUT", 0, kMaxSeconds);
  if (auto v = env("PDSH_SSH_ARGS")) apply_ssh_args(v, "PDSH_SSH_ARGS", o.ssh);
  if (auto v = env("PDSH_SSH_ARGS_APPEND")) apply_ssh_args(v, "PDSH_SSH_ARGS_APPEND", o.ssh);
}

bool apply_reach_option(int c, std::string_view arg, PdshReach& o) {
  switch (c) {
    case 'l':
      o.ssh.user = arg;
      return true;
    case 't':
      o.connect_timeout = parse_number(arg, "-t", 0, kMaxSeconds);
      return true;
    case 'u':
      o.command_timeout = parse_number(arg, "-u", 0, kMaxSeconds);
      return true;
    case 'f':
      o.fanout = std::size_t(parse_number(arg, "-f", 1, 1e6));
      return true;
    case 'w':
      o.include.emplace_back(arg);
      return true;
    case 'x':
      o.exclude.emplace_back(arg);
      return true;
    case 'R':
      o.rcmd = parse_rcmd(arg);
      return true;
    default:
      return c > 0 && c < 128 && o.genders.apply(char(c), arg);
  }
}

namespace {

// The hosts of -w expressions `include` (-w's own, or the genders hosts) by pdsh's rules.
std::vector<Host> listed_hosts(const PdshReach& o, const std::vector<std::string>& include,
                               Duplicates duplicates, PdshRcmd* rcmd) {
  *rcmd = o.rcmd;
  if (include.empty() && env("PDX_HOSTS"))  // pdx's own variable: pdx's rules (host:port)
    return resolve_hosts({}, o.exclude);
  std::vector<PdshTarget> targets = pdsh_targets(include, o.exclude, std::cin);
  if (targets.empty()) throw UsageError("no remote hosts: use -w, WCOLL or PDX_HOSTS");
  std::optional<PdshRcmd> chosen;
  HostList once;
  std::vector<Host> hosts;
  for (auto& target : targets) {
    PdshRcmd its = target.rcmd.empty() ? o.rcmd : parse_rcmd(target.rcmd);
    if (chosen && *chosen != its)
      throw UsageError("hosts of both rcmd modules ssh and exec in one run ('" + target.name +
                       "'); pdx runs one module at a time: run them apart");
    chosen = its;
    Host host{std::move(target.name), std::move(target.user), 0, 0};
    if (duplicates == Duplicates::keep) {
      hosts.push_back(std::move(host));
    } else {
      once.add(std::move(host), "-w");
    }
  }
  *rcmd = *chosen;
  return duplicates == Duplicates::keep ? hosts : once.take();
}

}  // namespace

std::vector<Host> pdsh_hosts(const PdshReach& o, Duplicates duplicates, PdshRcmd* rcmd) {
  PdshRcmd chosen = o.rcmd;
  GendersHosts picked = genders_hosts(o.genders, o.include, [&](const auto& include) {
    return listed_hosts(o, include, duplicates, &chosen);
  });
  for (const auto& warning : picked.warnings(chosen == PdshRcmd::exec ? "exec" : "ssh"))
    std::fprintf(stderr, "pdx: warning: %s\n", warning.c_str());
  if (rcmd) *rcmd = chosen;
  return std::move(picked.hosts);
}

PdshRun pdsh_run(const PdshReach& o, Duplicates duplicates) {
  PdshRun run;
  run.hosts = pdsh_hosts(o, duplicates, &run.rcmd);  // -w order: %n
  run.transport = run.rcmd == PdshRcmd::exec ? make_local_transport() : make_ssh_transport(o.ssh);
  run.tmpl.default_user = !o.ssh.user.empty() ? o.ssh.user : local_user();
  if (o.connect_timeout) run.tmpl.connect_timeout = millis_of(*o.connect_timeout);
  run.tmpl.command_timeout = millis_of(o.command_timeout);
  return run;
}

void throw_option_error(int c, int optopt_letter, std::string_view program) {
  std::string see = "; see '" + std::string(program) + " -h'";
  if (c == ':')
    throw UsageError(std::string("option -") + char(optopt_letter) + " needs an argument" + see);
  throw UsageError(std::string(program) + " option -" + char(optopt_letter) +
                   " is unknown or not one pdx has" + see);
}

void print_pdsh_version() {
  std::printf("pdsh-2.34 (pdx %s)\nrcmd modules: ssh,exec (default: ssh)\n", PDX_VERSION);
}

namespace {

// pdsh's _find_path: argv[0] made absolute, through $PATH for a bare name.
std::string program_path(const char* argv0) {
  std::string name = argv0;
  std::string cwd = std::filesystem::current_path().string();
  if (name.starts_with('/')) return name;
  if (name.starts_with('.') || name.find('/') != std::string::npos) return cwd + "/" + name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    std::string_view dir = dirs.substr(0, dirs.find(':'));
    dirs.remove_prefix(std::min(dirs.size(), dir.size() + 1));
    if (dir.empty()) continue;
    std::string candidate = (dir.starts_with('/') ? "" : cwd + "/") + std::string(dir) + "/" + name;
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace

PdshListing reach_listing(const PdshReach& reach, const char* argv0, Duplicates duplicates) {
  PdshListing l;
  PdshRcmd rcmd = reach.rcmd;
  for (auto& host : pdsh_hosts(reach, duplicates, &rcmd)) l.hosts.push_back(host.name);
  l.program_path = program_path(argv0);
  l.local_user = local_user();
  l.local_uid = getuid();
  l.remote_user = reach.ssh.user.empty() ? l.local_user : reach.ssh.user;
  l.rcmd = rcmd == PdshRcmd::ssh ? "ssh" : "exec";
  l.connect_timeout = long(reach.connect_timeout.value_or(10));
  l.command_timeout = long(reach.command_timeout);
  l.fanout = reach.fanout;
  return l;
}

}  // namespace pdx
