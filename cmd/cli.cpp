#include "cmd/cli.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "core/genders.h"
#include "core/output.h"
#include "transport/local_transport.h"

namespace pdx {

namespace {

constexpr double kMaxTimeout = 1e7;  // seconds (115 days): far from overflowing a timer

// The subcommands that run here only: `pdx -F cfg pack ...` (a host option before one) is taken
// as a remote command of that name, which with no hosts is not what was meant.
bool local_subcommand(const std::vector<std::string>& words) {
  if (words.empty()) return false;
  for (const char* name : {"hosts", "pack", "unpack", "join", "split"})
    if (words.front() == name) return true;
  return false;
}

}  // namespace

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

std::string take_dest(std::vector<std::string>& paths, const std::string& command) {
  if (paths.size() < 2)
    throw UsageError("give at least one SRC and a DEST; see 'pdx " + command + " --help'");
  std::string dest = std::move(paths.back());
  paths.pop_back();
  if (dest.empty())
    throw UsageError(
        "DEST is empty: name a directory or file on the hosts ('.' for the home "
        "directory)");
  return dest;
}

std::string this_program() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw FatalError("cannot find this pdx (/proc/self/exe): " + ec.message());
  return exe.string();
}

void print_compat_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path dir = (exe.parent_path() / ".." / "lib" / "pdx" / "bin").lexically_normal();
  if (ec || !fs::exists(dir / "pdsh", ec))
    throw FatalError("no pdsh link next to this pdx (looked in " + dir.string() +
                     "); links are made by cmake --install");
  std::cout << dir.string() << "\n";
  throw CLI::Success();
}

void add_genders_options(CLI::App& app, GendersArgs& o) {
  app.add_option("-g", o.queries,
                 "Hosts matching a genders query: attr, attr=val, ||, &&, -- (repeatable)")
      ->allow_extra_args(false)
      ->type_name("QUERY");
  app.add_option("-X", o.excludes, "Leave out hosts matching a genders query (repeatable)")
      ->allow_extra_args(false)
      ->type_name("QUERY");
  app.add_option("--genders", o.file,
                 "Genders database for -g/-X (default: $PDSH_GENDERS_FILE, else /etc/genders)")
      ->type_name("FILE");
}

std::vector<Host> pick_hosts(const std::vector<std::string>& include,
                             const std::vector<std::string>& exclude, const GendersArgs& args,
                             std::string_view rcmd) {
  GendersOptions genders;
  for (const auto& query : args.queries) genders.apply('g', query);
  for (const auto& query : args.excludes) genders.apply('X', query);
  if (!args.file.empty()) genders.apply('F', args.file);
  if (!genders.given) return resolve_hosts(include, exclude);
  GendersHosts picked = genders_hosts(genders, include, [&](const std::vector<std::string>& in) {
    return resolve_hosts(in, exclude);
  });
  if (!rcmd.empty())
    for (const auto& warning : picked.warnings(rcmd))
      std::fprintf(stderr, "pdx: warning: %s\n", warning.c_str());
  return std::move(picked.hosts);
}

void add_host_options(CLI::App& app, HostOptions& o) {
  app.add_option("-w", o.include, "Hosts to run on: node[01-64], ^FILE, -EXCLUDED (repeatable)")
      ->allow_extra_args(false);
  app.add_option("-x", o.exclude, "Hosts to leave out, same syntax (repeatable)")
      ->allow_extra_args(false);
  // Not CLI::PositiveNumber: its message for 0 spells out the range of a double.
  const CLI::Validator at_least_one(
      [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
          return "'" + s + "' is not a number of hosts";
        return s.find_first_not_of('0') == std::string::npos ? "must be at least 1" : "";
      },
      "N>=1");
  add_genders_options(app, o.genders);
  app.add_option("-f", o.fanout, "Hosts at once (fan-out), default 64")->check(at_least_one);
  app.add_option("-t", o.connect_timeout,
                 "Connect timeout in seconds (default: ConnectTimeout, else 10); 0: none")
      ->check(CLI::Range(0.0, kMaxTimeout));
  app.add_option("-u", o.command_timeout, "Command timeout in seconds; the host then fails (255)")
      ->check(CLI::Range(0.0, kMaxTimeout));
  app.add_option("-R", o.rcmd, "How to reach hosts: ssh (default) or exec (run here, %h %u %n)")
      ->check(CLI::IsMember({"ssh", "exec"}));
  app.add_option("-l", o.ssh.user, "Remote user");
  app.add_option("-p", o.ssh.port, "Remote port")->check(CLI::Range(1, 65535));
  app.add_option("-i", o.ssh.identity_files, "Identity file (repeatable)")->allow_extra_args(false);
  app.add_option("-o", o.ssh.options, "ssh option Key=Value (repeatable)")->allow_extra_args(false);
  app.add_option("-F", o.ssh.config_file, "ssh config file");
  app.add_option("-J", o.ssh.jump_hosts,
                 "Jump hosts [user@]host[:port][,...], as ssh -J: one login to each for all hosts");
  app.add_flag("--askpass", o.ssh.askpass, "Prompt once for a password used on every host");
  app.add_option("-O", o.ssh.control_op,
                 "check|exit: ask the hosts' ControlMaster holders, as ssh -O; runs nothing")
      ->check(CLI::IsMember({"check", "exit"}));
}

int run_control_op(const HostOptions& o, const std::string& command) {
  if (!command.empty())
    throw UsageError("-O " + o.ssh.control_op + " runs no command; drop '" + command + "'");
  std::vector<Endpoint> endpoints;
  for (const auto& host : pick_hosts(o.include, o.exclude, o.genders, ""))
    endpoints.push_back(Endpoint{host.name, host.user, host.port});
  return run_control_command(o.ssh, endpoints);
}

std::vector<std::string> HostRun::labels() const {
  std::vector<std::string> labels;
  for (const auto& host : hosts) labels.push_back(host.label());
  return labels;
}

HostRun host_run(const CLI::App& app, const HostOptions& o) {
  HostRun run;
  try {
    run.hosts = pick_hosts(o.include, o.exclude, o.genders, o.rcmd);
  } catch (const UsageError&) {
    std::vector<std::string> words = app.remaining();
    if (!o.include.empty() || !local_subcommand(words)) throw;
    throw UsageError("no hosts to run '" + words.front() + "' on; for pdx's own " + words.front() +
                     ", give no host options: pdx " + words.front() + " ...");
  }
  if (!o.ssh.control_op.empty())
    throw UsageError("-O " + o.ssh.control_op + " runs nothing: pdx -O " + o.ssh.control_op +
                     " -w HOSTS, alone");
  if (o.rcmd == "exec" && !o.ssh.jump_hosts.empty())
    throw UsageError("-J reaches hosts over ssh; -R exec runs commands here: drop one");
  run.transport = o.rcmd == "exec" ? make_local_transport() : make_ssh_transport(o.ssh);
  run.tmpl.substitute = o.rcmd == "exec";  // -R exec: %h %u %n, as pdsh
  run.tmpl.default_user = o.ssh.user.empty() ? local_user() : o.ssh.user;
  if (app.count("-t")) run.tmpl.connect_timeout = millis(o.connect_timeout);
  run.tmpl.command_timeout = millis(o.command_timeout);
  return run;
}

void add_report_options(CLI::App& app, ReportOptions& o) {
  app.add_flag("--json", o.json, "Report one JSON object per host on stdout");
  app.add_flag("--progress", o.progress, "Show the progress line even when stderr is no terminal");
  app.add_flag("--no-progress", o.no_progress, "Show no progress line")->excludes("--progress");
}

void add_agent_options(CLI::App& app, AgentOptions& o, const std::string& without) {
  app.add_option("--agent", o.agent,
                 "Run the pdx installed at PATH on the hosts instead of deploying this one");
  app.add_flag("--no-agent", o.no_agent,
               without + ", not pdx agent (slower; for hosts it cannot run on)");
}

int report_outcomes(const std::vector<std::string>& labels,
                    const std::vector<HostOutcome>& outcomes, bool json) {
  if (json)
    write_all(STDOUT_FILENO, outcome_json(labels, outcomes));
  else
    write_all(STDERR_FILENO, outcome_report(labels, outcomes));
  return outcome_exit_status(outcomes);
}

}  // namespace pdx
