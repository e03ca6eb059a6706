// pdx [-w HOSTS] [-x HOSTS] [options] COMMAND: run COMMAND on every host (pdx(1), DESCRIPTION).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "base/strings.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/executor.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "core/output.h"
#include "core/summary.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

struct RunOptions {
  HostOptions hosts;
  bool no_prefix = false, gather = false, json = false, no_stdin = false;
  bool strict = false;  // -S: accepted for pdsh users; pdx always returns the largest status
  std::string outdir;
  std::vector<std::string> env_assignments;
  std::string env_file;
};

void add_options(CLI::App& app, RunOptions& o) {
  add_host_options(app, o.hosts);
  app.add_flag("-N", o.no_prefix, "Do not prefix output lines with the host name");
  app.add_flag("-b", o.gather, "Gather: print identical outputs once, under folded host names");
  app.add_option("--outdir", o.outdir, "Write DIR/HOST.out and DIR/HOST.err instead of printing");
  app.add_flag("--json", o.json, "One JSON object per host on stdout");
  app.add_option("-E", o.env_assignments, "Export KEY=VALUE to the command (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--env-file", o.env_file, "Export the KEY=VALUE lines of FILE to the command");
  app.add_flag("-n", o.no_stdin, "Do not send stdin to the commands");
  app.add_flag_callback(
      "--compat-dir", print_compat_dir,
      "Print the directory of the pdsh and dshbak links (pdx(1) PDSH COMPATIBILITY)");
  app.add_flag("-S", o.strict,
               "Exit with the largest remote exit status (always on; for pdsh users)");
}

std::vector<EnvVar> user_env(const RunOptions& o) {
  std::vector<EnvVar> env;
  if (!o.env_file.empty()) env = read_env_file(o.env_file);
  for (const auto& a : o.env_assignments) env.push_back(parse_env_assignment(a));
  return env;
}

// Every host's command reads pdx's stdin, streamed to all at once (transport/broadcast.h), unless
// it is a terminal or -n. With more hosts than -f, some start late: stdin is spooled for them.
std::shared_ptr<Broadcast> broadcast_stdin(bool disabled, std::size_t hosts, std::size_t fanout) {
  if (disabled || isatty(STDIN_FILENO)) return nullptr;
  Broadcast::Options options;
  options.spool = hosts > fanout;
  auto started = Broadcast::start(STDIN_FILENO, hosts, options);
  if (!started) throw FatalError(started.error());
  return std::move(*started);
}

std::unique_ptr<OutputSink> make_sink(const RunOptions& o, std::vector<std::string> labels) {
  if (int(o.gather) + int(o.json) + int(!o.outdir.empty()) > 1)
    throw UsageError("choose one of -b, --json and --outdir");
  if (o.json) return make_json_sink(std::move(labels));
  if (!o.outdir.empty()) return make_outdir_sink(std::move(labels), o.outdir);
  if (o.gather) return make_gather_sink(std::move(labels), colour_for(STDOUT_FILENO));
  return make_prefix_sink(std::move(labels), o.no_prefix ? Prefix::no : Prefix::yes,
                          colour_for(STDOUT_FILENO));
}

}  // namespace

int cmd_run(int argc, char** argv) {
  RunOptions o;
  CLI::App app(
      "Run a command on many hosts at once.\n"
      "Usage: pdx -w HOSTS [options] COMMAND...\n"
      "       pdx hosts|push|sync|pull|verify|preflight|pack|unpack|join|split --help",
      "pdx");
  app.set_version_flag("--version", "pdx " PDX_VERSION);
  app.prefix_command();  // COMMAND and everything after it belong to the remote command
  add_options(app, o);
  if (auto status = parse_cli(app, argc, argv)) return *status;

  std::vector<std::string> words = app.remaining();
  // `pdx -w HOSTS push|sync|pull|verify|preflight ...`: the host options may come before the
  // subcommand.
  static constexpr std::pair<const char*, int (*)(int, char**)> kAfterHosts[] = {
      {"push", cmd_push},
      {"sync", cmd_sync},
      {"pull", cmd_pull},
      {"verify", cmd_verify},
      {"preflight", cmd_preflight}};
  for (const auto& [name, subcommand] : kAfterHosts) {
    if (words.empty() || words.front() != name) continue;
    std::vector<char*> args(argv, argv + argc);
    args.erase(args.end() - static_cast<std::ptrdiff_t>(words.size()));
    return subcommand(argc - 1, args.data());
  }
  if (!words.empty() && words.front().starts_with("-"))
    throw UsageError("unknown option " + words.front() + "; see 'pdx --help'");
  std::string command = join(words, " ");
  if (!o.hosts.ssh.control_op.empty()) return run_control_op(o.hosts, command);
  if (command.empty()) throw UsageError("no command given; see 'pdx --help'");
  HostRun run = host_run(app, o.hosts);
  std::vector<std::string> labels = run.labels();
  std::unique_ptr<OutputSink> sink = make_sink(o, labels);

  JobTemplate& tmpl = run.tmpl;
  tmpl.command = command;
  tmpl.env = user_env(o);
  tmpl.stdin_source =  // after usage errors
      broadcast_stdin(o.no_stdin, run.hosts.size(), o.hosts.fanout);
  std::vector<Job> jobs = make_jobs(run.hosts, tmpl);

  std::vector<HostResult> results = execute(*run.transport, jobs, *sink, {o.hosts.fanout, 0});
  if (auto lost = sink->error()) {  // the run was stopped for it: its summary would be noise
    if (lost->broken_pipe()) return kExitBrokenPipe;  // silent, as coreutils are
    throw FatalError(lost->message());
  }
  write_all(STDERR_FILENO, failure_summary(labels, results));  // stderr failing: nowhere to say
  return run_exit_status(results);
}

}  // namespace pdx
