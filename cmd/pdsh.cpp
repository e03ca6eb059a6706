// pdx started as `pdsh` (a link): pdsh 2.34's command line, environment, output and exit
// status, over pdx's own ssh client (pdx(1), PDSH COMPATIBILITY). What DeepSpeed's PDSHRunner
// and Accelerate run: pdsh -S -f 1024 -w host1,host2 export K="V"; cd DIR; python3 ... %n ...
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cmd/commands.h"
#include "cmd/pdsh_options.h"
#include "core/executor.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "core/pdsh.h"

namespace pdx {

namespace {

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
  PdshReach reach;
  Prefix prefix = Prefix::yes;
  Strict strict = Strict::no;
  std::vector<std::string> words;  // the remote command's arguments
};

// pdsh's options end at the first word that is not one ("+" in getopt's string), so the remote
// command's own options stay its own. Returns an exit status for -h and -V.
std::optional<int> parse_command_line(int argc, char** argv, PdshOptions& o) {
  opterr = 0;  // our own one-line errors
  optind = 1;
  const std::string letters = "+:hVSbdN" + std::string(kReachOptions);
  for (int c; (c = getopt(argc, argv, letters.c_str())) != -1;) {
    std::string_view arg = optarg ? optarg : "";
    switch (c) {
      case 'h':
        std::fputs(kUsage, stdout);
        std::fputs(kGendersUsage, stdout);
        return kExitOk;
      case 'V':
        print_pdsh_version();
        return kExitOk;
      case 'S':
        o.strict = Strict::yes;
        break;
      case 'b':
      case 'd':
        break;  // ^C status features pdx does not have
      case 'N':
        o.prefix = Prefix::no;
        break;
      default:
        if (!apply_reach_option(c, arg, o.reach)) throw_option_error(c, optopt, "pdsh");
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
  if (o.reach.rcmd == PdshRcmd::ssh) return join(o.words, " ");
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

}  // namespace

int cmd_pdsh(int argc, char** argv) {
  PdshOptions o;
  read_reach_environment(o.reach);
  if (auto status = parse_command_line(argc, argv, o)) return *status;

  PdshRun run = pdsh_run(o.reach);
  PdshRcmd rcmd = o.reach.rcmd;
  std::vector<std::string> labels = pdsh_labels(run.hosts);
  PdshNames names{short_host_name(), rcmd == PdshRcmd::ssh ? "ssh" : o.words.front()};
  auto sink = make_pdsh_sink(make_prefix_sink(labels, o.prefix, Colour::no), labels, names, rcmd);

  run.tmpl.command = command_of(o);
  run.tmpl.substitute = true;  // over ssh too, as pdsh does
  // No stdin: pdsh sends none; the commands read EOF.
  std::vector<Job> jobs = make_jobs(run.hosts, run.tmpl);

  std::vector<HostResult> results = execute(*run.transport, jobs, *sink, {o.reach.fanout, 0});
  return pdsh_exit_status(results, o.strict, rcmd);
}

}  // namespace pdx
