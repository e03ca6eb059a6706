// pdx [-w HOSTS] [-x HOSTS] [options] COMMAND: run COMMAND on every host (pdx(1), RUN).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
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
#include "transport/local_transport.h"
#include "transport/ssh_options.h"

namespace pdx {

namespace {

constexpr double kMaxTimeout = 1e7;  // seconds (115 days): far from overflowing a timer

struct RunOptions {
  std::vector<std::string> include, exclude;
  std::size_t fanout = 64;
  double connect_timeout = 0;  // only when -t was given: app.count("-t")
  double command_timeout = 0;
  std::string rcmd = "ssh";
  SshOptions ssh;
  bool no_prefix = false, gather = false, json = false, no_stdin = false;
  bool strict = false;  // -S: accepted for pdsh users; pdx always returns the largest status
  std::string outdir;
  std::vector<std::string> env_assignments;
  std::string env_file;
};

void add_options(CLI::App& app, RunOptions& o) {
  app.add_option("-w", o.include, "Hosts to run on: node[01-64], ^FILE, -EXCLUDED (repeatable)")
      ->allow_extra_args(false);
  app.add_option("-x", o.exclude, "Hosts to leave out, same syntax (repeatable)")
      ->allow_extra_args(false);
  app.add_option("-f", o.fanout, "Hosts at once (fan-out), default 64")->check(CLI::PositiveNumber);
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
  app.add_flag("--askpass", o.ssh.askpass, "Prompt once for a password used on every host");
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

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
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

std::string local_user() {
  const char* user = std::getenv("USER");
  return user ? user : "";
}

}  // namespace

int cmd_run(int argc, char** argv) {
  RunOptions o;
  CLI::App app(
      "Run a command on many hosts at once.\n"
      "Usage: pdx -w HOSTS [options] COMMAND...\n"
      "       pdx hosts|pack|unpack|join|split --help",
      "pdx");
  app.set_version_flag("--version", "pdx " PDX_VERSION);
  app.prefix_command();  // COMMAND and everything after it belong to the remote command
  add_options(app, o);
  if (auto status = parse_cli(app, argc, argv)) return *status;

  std::vector<std::string> words = app.remaining();
  if (!words.empty() && words.front().starts_with("-"))
    throw UsageError("unknown option " + words.front() + "; see 'pdx --help'");
  std::string command = join(words, " ");
  if (command.empty()) throw UsageError("no command given; see 'pdx --help'");
  std::vector<Host> hosts = resolve_hosts(o.include, o.exclude);
  std::unique_ptr<Transport> transport =
      o.rcmd == "exec" ? make_local_transport() : make_ssh_transport(o.ssh);

  std::vector<std::string> labels;
  for (const auto& host : hosts) labels.push_back(host.label());
  std::unique_ptr<OutputSink> sink = make_sink(o, labels);

  JobTemplate tmpl;
  tmpl.command = command;
  tmpl.env = user_env(o);
  tmpl.substitute = o.rcmd == "exec";
  tmpl.default_user = o.ssh.user.empty() ? local_user() : o.ssh.user;
  if (app.count("-t")) tmpl.connect_timeout = millis(o.connect_timeout);
  tmpl.command_timeout = millis(o.command_timeout);
  tmpl.stdin_source = broadcast_stdin(o.no_stdin, hosts.size(), o.fanout);  // after usage errors
  std::vector<Job> jobs = make_jobs(hosts, tmpl);

  std::vector<HostResult> results = execute(*transport, jobs, *sink, {o.fanout, 0});
  if (auto lost = sink->error()) {  // the run was stopped for it: its summary would be noise
    if (lost->broken_pipe()) return kExitBrokenPipe;  // silent, as coreutils are
    throw FatalError(lost->message());
  }
  write_all(STDERR_FILENO, failure_summary(labels, results));  // stderr failing: nowhere to say
  return run_exit_status(results);
}

}  // namespace pdx
