// pdx started as `pdcp` or `rpdcp` (links): pdsh 2.34's copy commands, onto pdx push and pdx
// pull (pdx(1), PDSH COMPATIBILITY). pdcp -w HOSTS [-r] [-p] SRC... DEST copies to every host;
// rpdcp -w HOSTS [-r] [-p] REMOTE... DIR gathers every host's REMOTE into DIR/NAME.HOST.
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/pdsh_options.h"
#include "core/output.h"
#include "distribute/pull/pull.h"
#include "distribute/push/push.h"
#include "distribute/push/push_report.h"
#include "distribute/remote_commands.h"

namespace pdx {

namespace {

constexpr const char* kPdcpUsage =
    "Usage: pdcp [-options] src [src2...] dest\n"
    "       rpdcp [-options] src [src2...] dir\n"
    "pdcp and rpdcp as pdx runs them (pdx(1), PDSH COMPATIBILITY):\n"
    "-r                recursively copy directories\n"
    "-p                preserve modification time and modes (pdx always does)\n"
    "-h                output usage menu and quit\n"
    "-V                output version information and quit\n"
    "-q                list the option settings and quit\n"
    "-l user           execute remote commands as user\n"
    "-t seconds        set connect timeout (default is 10 sec)\n"
    "-u seconds        set command timeout (no default)\n"
    "-f n              use fanout of n nodes\n"
    "-w host,host,...  set target node list on command line\n"
    "-x host,host,...  set node exclusion list on command line\n"
    "-R name           set rcmd module to name: ssh (default) or exec\n"
    "Environment: PDSH_RCMD_TYPE PDSH_SSH_ARGS PDSH_SSH_ARGS_APPEND WCOLL FANOUT\n"
    "             PDSH_CONNECT_TIMEOUT PDSH_COMMAND_TIMEOUT\n";

struct PdcpOptions {
  PdshReach reach;
  bool recursive = false, preserve = false;
  bool list = false;  // -q: the options and hosts, nothing copied
  std::vector<std::string> sources;
  std::string dest;
};

std::optional<int> parse_command_line(int argc, char** argv, std::string_view program,
                                      PdcpOptions& o) {
  opterr = 0;  // our own one-line errors
  optind = 1;
  const std::string letters = ":hVrpqe:" + std::string(kReachOptions);
  for (int c; (c = getopt(argc, argv, letters.c_str())) != -1;) {
    std::string_view arg = optarg ? optarg : "";
    switch (c) {
      case 'h':
        std::fputs(kPdcpUsage, stdout);
        return kExitOk;
      case 'V':
        print_pdsh_version();
        return kExitOk;
      case 'r':
        o.recursive = true;
        break;
      case 'p':
        o.preserve = true;  // pdx keeps modes and times all the same; -q shows it
        break;
      case 'q':
        o.list = true;
        break;
      case 'e':
        break;  // -e (the remote pdcp's path) has no use for pdx
      default:
        if (!apply_reach_option(c, arg, o.reach)) throw_option_error(c, optopt, program);
    }
  }
  if (argc - optind < 2)
    throw UsageError("give at least one source and a destination; see '" + std::string(program) +
                     " -h'");
  o.sources.assign(argv + optind, argv + argc - 1);
  o.dest = argv[argc - 1];
  if (o.dest.empty())
    throw UsageError(program == "rpdcp"
                         ? "DIR is empty: name a local directory to gather into"
                         : "DEST is empty: name a directory or file on the hosts ('.' for the "
                           "home directory)");
  return std::nullopt;
}

// -q: pdsh's listing with its PCP part, as pdcp and rpdcp print it.
int list_options(const PdcpOptions& o, const char* argv0) {
  PdshListing l = reach_listing(o.reach, argv0, Duplicates::keep);  // as pdcp lists them
  l.copy = PdshListing::Copy{o.sources, o.dest, o.recursive, o.preserve};
  std::fputs(pdsh_listing(l).c_str(), stdout);
  return kExitOk;
}

int run_pdcp(PdcpOptions& o) {
  if (!o.recursive) {
    for (const auto& source : o.sources)
      if (std::filesystem::is_directory(source))
        throw UsageError(source + ": is a directory (copy it with -r)");
  }
  PdshRun run = pdsh_run(o.reach);
  PushOptions push_options;
  push_options.sources = o.sources;
  push_options.dest = o.dest;
  push_options.fanout = o.reach.fanout;
  PushReport report = push(*run.transport, run.hosts, run.tmpl, push_options);
  std::vector<std::string> labels = pdsh_labels(run.hosts);
  write_all(STDERR_FILENO, push_text(labels, report).err);  // pdcp is silent when all is well
  return push_exit_status(report);
}

int run_rpdcp(const PdcpOptions& o) {
  if (!std::filesystem::is_directory(o.dest))
    throw UsageError(o.dest + ": is not a directory (rpdcp gathers into one)");
  if (auto command = pull_command(o.sources); !command) fail(command);
  PdshRun run = pdsh_run(o.reach);
  run.tmpl.substitute = false;  // the commands are pdx's own: run as written, under -R exec too
  PullOptions options;
  options.remotes = o.sources;
  options.host_suffix = true;
  options.directories = o.recursive ? Directories::copied : Directories::refused;
  options.local_dir = o.dest;
  options.host_directories = false;
  options.unpacker = {this_program(), "unpack"};
  options.fanout = o.reach.fanout;
  PullReport pulled = pull(*run.transport, run.hosts, run.tmpl, options);
  const std::vector<HostOutcome>& outcomes = pulled.hosts;
  write_all(STDERR_FILENO, pulled.warning);
  std::string report = outcome_report(pdsh_labels(run.hosts), outcomes);
  if (outcome_exit_status(outcomes) != 0) write_all(STDERR_FILENO, report);
  return outcome_exit_status(outcomes);
}

}  // namespace

int cmd_pdcp(int argc, char** argv) {
  std::string_view program = argv[0];
  program = program.substr(program.rfind('/') + 1);
  PdcpOptions o;
  read_reach_environment(o.reach);
  if (auto status = parse_command_line(argc, argv, program, o)) return *status;
  if (o.list) return list_options(o, argv[0]);
  return program == "rpdcp" ? run_rpdcp(o) : run_pdcp(o);
}

}  // namespace pdx
