#pragma once
// What the subcommands that reach hosts share: their host options, and turning them into hosts,
// jobs and a transport (parsing and failing: cmd/parse.h).
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "cmd/parse.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "distribute/host_outcome.h"
#include "transport/ssh_options.h"
#include "transport/transport.h"

namespace pdx {

/// -g QUERY, -X QUERY, --genders FILE: pdsh's genders options (core/genders.h); -F is ssh's.
struct GendersArgs {
  std::vector<std::string> queries, excludes;
  std::string file;
};
void add_genders_options(CLI::App& app, GendersArgs& o);

/// The hosts of -w and -x and the genders options (/etc/genders only read when one is given),
/// warning on stderr of pdsh_rcmd_type modules other than `rcmd` (none when it is empty). Throws
/// UsageError and FatalError as resolve_hosts and genders_hosts do.
std::vector<Host> pick_hosts(const std::vector<std::string>& include,
                             const std::vector<std::string>& exclude, const GendersArgs& genders,
                             std::string_view rcmd);

/// The options of every subcommand that reaches hosts (pdx(1), OPTIONS): which hosts, how many
/// at once, the timeouts, and how to reach them (-R, the ssh options).
struct HostOptions {
  std::vector<std::string> include, exclude;
  std::size_t fanout = 64;
  double connect_timeout = 0;  // only when -t was given: app.count("-t")
  double command_timeout = 0;
  std::string rcmd = "ssh";
  SshOptions ssh;
  GendersArgs genders;
};

/// -w -x -g -X --genders -f -t -u -R -l -p -i -o -F -J --askpass -O.
void add_host_options(CLI::App& app, HostOptions& o);

/// What the parsed HostOptions stand for: the hosts, the transport reaching them, and a job
/// template holding the user and timeouts (the caller sets the command, env and stdin).
struct HostRun {
  std::vector<Host> hosts;
  std::unique_ptr<Transport> transport;
  JobTemplate tmpl;
  std::vector<std::string> labels() const;
};
/// Throws UsageError for a bad host expression or no hosts (saying, when the command is `pack`,
/// `split` or another subcommand that runs here, that host options make no sense for it).
HostRun host_run(const CLI::App& app, const HostOptions& o);

/// `-O check|exit` (o.ssh.control_op): asks each host's ControlMaster holder, as `ssh -O`.
/// Throws UsageError if a `command` was given too. Returns the exit status.
int run_control_op(const HostOptions& o, const std::string& command);

/// How push, pull and verify report: --json, --progress, --no-progress (pdx(1), Progress and
/// JSON).
struct ReportOptions {
  bool json = false, progress = false, no_progress = false;
};
void add_report_options(CLI::App& app, ReportOptions& o);

/// push's and verify's --agent PATH and --no-agent; `without`: what --no-agent does instead.
struct AgentOptions {
  std::string agent;  // empty: self-deploy
  bool no_agent = false;
};
void add_agent_options(CLI::App& app, AgentOptions& o, const std::string& without);

/// pull's and verify's end: the outcomes as JSON lines on stdout, or the folded report on
/// stderr; their exit status.
int report_outcomes(const std::vector<std::string>& labels,
                    const std::vector<HostOutcome>& outcomes, bool json);

/// push's and sync's SRC... DEST: DEST, taken off the end of `paths`. A UsageError when there is
/// no SRC, or DEST is "" (before any host is reached).
std::string take_dest(std::vector<std::string>& paths, const std::string& command);

/// Seconds as given on the command line, as milliseconds for a Job.
std::chrono::milliseconds millis(double seconds);

/// This pdx (/proc/self/exe), to run `pdx unpack` as the receiving end of a host's stream.
/// Throws FatalError when it cannot be found.
std::string this_program();

/// `pdx --compat-dir`: prints the directory holding the pdsh and dshbak links of this pdx
/// (PREFIX/lib/pdx/bin for PREFIX/bin/pdx), then ends the parse with CLI::Success (exit 0).
/// Throws FatalError when there is no such directory (pdx run from its build tree).
void print_compat_dir();

}  // namespace pdx
