// pdx started as `pdsh` (a link): pdsh 2.34's command line, environment, output and exit
// status, over pdx's own ssh client (pdx(1), PDSH COMPATIBILITY). What DeepSpeed's PDSHRunner
// and Accelerate run: pdsh -S -f 1024 -w host1,host2 export K="V"; cd DIR; python3 ... %n ...
#include <getopt.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cmd/commands.h"
#include "core/executor.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "core/pdsh.h"
#include "transport/local_transport.h"

namespace pdx {

namespace {

constexpr double kMaxSeconds = 1e7;  // as pdx's -t and -u

constexpr const char* kUsage =
    "Usage: pdsh [-options] command ...\n"
    "pdsh as pdx runs it (pdx(1), PDSH COMPATIBILITY):\n"
    "-S                return largest of remote command return values\n"
    "-h                output usage menu and quit\n"
    "-V                output version information and quit\n"
    "-b, -d            accepted, no effect\n"
    "-l user           execute remote commands as user\n"
    "-t seconds        set connect timeout (default is 10 sec)\n"
    "-u seconds        set command timeout (no default)\n"
    "-f n              use fanout of n nodes\n"
    "-w host,host,...  set target node list on command line\n"
    "-x host,host,...  set node exclusion list on command line\n"
    "-R name           set rcmd module to name: ssh (default) or exec\n"
    "-N                disable hostname: labels on output lines\n"
    "Environment: PDSH_RCMD_TYPE PDSH_SSH_ARGS PDSH_SSH_ARGS_APPEND WCOLL FANOUT\n"
    "             PDSH_CONNECT_TIMEOUT PDSH_COMMAND_TIMEOUT\n";

struct PdshOptions {
  std::vector<std::string> include, exclude;
  std::size_t fanout = 32;  // pdsh's default
  std::optional<double> connect_timeout;
  double command_timeout = 0;
  PdshRcmd rcmd = PdshRcmd::ssh;
  SshOptions ssh;
  Prefix prefix = Prefix::yes;
  Strict strict = Strict::no;
  std::vector<std::string> words;  // the remote command's arguments
};

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

// The environment first, so that the command line wins over it.
void read_environment(PdshOptions& o) {
  if (auto v = env("PDSH_RCMD_TYPE")) o.rcmd = parse_rcmd(v);
  if (auto v = env("FANOUT")) o.fanout = std::size_t(parse_number(v, "FANOUT", 1, 1e6));
  if (auto v = env("PDSH_CONNECT_TIMEOUT"))
    o.connect_timeout = parse_number(v, "PDSH_CONNECT_TIMEOUT", 0, kMaxSeconds);
  if (auto v = env("PDSH_COMMAND_TIMEOUT"))
    o.command_timeout = parse_number(v, "PDSH_COMMAND_TIMEOUT", 0, kMaxSeconds);
  if (auto v = env("PDSH_SSH_ARGS")) apply_ssh_args(v, "PDSH_SSH_ARGS", o.ssh);
  if (auto v = env("PDSH_SSH_ARGS_APPEND")) apply_ssh_args(v, "PDSH_SSH_ARGS_APPEND", o.ssh);
}

// pdsh's options end at the first word that is not one ("+" in getopt's string), so the remote
// command's own options stay its own. Returns an exit status for -h and -V.
std::optional<int> parse_command_line(int argc, char** argv, PdshOptions& o) {
  opterr = 0;  // our own one-line errors
  optind = 1;
  for (int c; (c = getopt(argc, argv, "+:hVSbdl:t:u:f:w:x:R:N")) != -1;) {
    std::string_view arg = optarg ? optarg : "";
    switch (c) {
      case 'h':
        std::fputs(kUsage, stdout);
        return kExitOk;
      case 'V':
        std::printf("pdsh-2.34 (pdx %s)\nrcmd modules: ssh,exec (default: ssh)\n", PDX_VERSION);
        return kExitOk;
      case 'S':
        o.strict = Strict::yes;
        break;
      case 'b':
      case 'd':
        break;  // ^C status features pdx does not have
      case 'l':
        o.ssh.user = arg;
        break;
      case 't':
        o.connect_timeout = parse_number(arg, "-t", 0, kMaxSeconds);
        break;
      case 'u':
        o.command_timeout = parse_number(arg, "-u", 0, kMaxSeconds);
        break;
      case 'f':
        o.fanout = std::size_t(parse_number(arg, "-f", 1, 1e6));
        break;
      case 'w':
        o.include.emplace_back(arg);
        break;
      case 'x':
        o.exclude.emplace_back(arg);
        break;
      case 'R':
        o.rcmd = parse_rcmd(arg);
        break;
      case 'N':
        o.prefix = Prefix::no;
        break;
      case ':':
        throw UsageError(std::string("option -") + char(optopt) +
                         " needs an argument; see 'pdsh -h'");
      default:
        throw UsageError(std::string("pdsh option -") + char(optopt) +
                         " is unknown or not one pdx has; see 'pdsh -h'");
    }
  }
  o.words.assign(argv + optind, argv + argc);
  if (o.words.empty())
    throw UsageError("no command given (pdsh's interactive mode is not in pdx); see 'pdsh -h'");
  return std::nullopt;
}

// ssh hands the words, joined by spaces, to the remote user's shell (DeepSpeed quotes for that);
// exec runs them as they are, which /bin/sh -c does with each word quoted.
std::string command_of(const PdshOptions& o) {
  if (o.rcmd == PdshRcmd::ssh) return join(o.words, " ");
  std::vector<std::string> quoted;
  for (const auto& word : o.words) quoted.push_back(shell_quote(word));
  return join(quoted, " ");
}

std::string short_host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::string host = name;
  return host.substr(0, host.find('.'));
}

std::chrono::milliseconds millis_of(double seconds) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(seconds));
}

}  // namespace

int cmd_pdsh(int argc, char** argv) {
  PdshOptions o;
  read_environment(o);
  if (auto status = parse_command_line(argc, argv, o)) return *status;

  std::vector<Host> hosts = resolve_hosts(o.include, o.exclude);  // -w order: %n
  std::unique_ptr<Transport> transport =
      o.rcmd == PdshRcmd::exec ? make_local_transport() : make_ssh_transport(o.ssh);
  std::vector<std::string> labels = pdsh_labels(hosts);
  PdshNames names{short_host_name(), o.rcmd == PdshRcmd::ssh ? "ssh" : o.words.front()};
  auto sink = make_pdsh_sink(make_prefix_sink(labels, o.prefix, Colour::no), labels, names, o.rcmd);

  JobTemplate tmpl;
  tmpl.command = command_of(o);
  tmpl.substitute = true;  // over ssh too, as pdsh does
  const char* user = std::getenv("USER");
  tmpl.default_user = !o.ssh.user.empty() ? o.ssh.user : user ? user : "";
  if (o.connect_timeout) tmpl.connect_timeout = millis_of(*o.connect_timeout);
  tmpl.command_timeout = millis_of(o.command_timeout);
  // No stdin: pdsh sends none; the commands read EOF.
  std::vector<Job> jobs = make_jobs(hosts, tmpl);

  std::vector<HostResult> results = execute(*transport, jobs, *sink, {o.fanout, 0});
  return pdsh_exit_status(results, o.strict, o.rcmd);
}

}  // namespace pdx
