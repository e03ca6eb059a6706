#pragma once
// What pdsh, pdcp and rpdcp (cmd/pdsh.cpp, cmd/pdcp.cpp) read the same way, as pdsh 2.34 does:
// the host options -w -x -f -l -t -u -R, the genders module's -g -X -a -A -i -F (core/genders.h),
// and the environment (PDSH_RCMD_TYPE, FANOUT, WCOLL through resolve_hosts, PDSH_SSH_ARGS,
// PDSH_SSH_ARGS_APPEND, PDSH_*_TIMEOUT, PDSH_GENDERS_FILE, PDSH_GENDERS_DIR).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/genders.h"
#include "core/hostset.h"
#include "core/jobs.h"
#include "core/pdsh.h"
#include "transport/ssh_options.h"
#include "transport/transport.h"

namespace pdx {

struct PdshReach {
  std::vector<std::string> include, exclude;
  std::size_t fanout = 32;  // pdsh's default
  std::optional<double> connect_timeout;
  double command_timeout = 0;
  PdshRcmd rcmd = PdshRcmd::ssh;
  SshOptions ssh;
  GendersOptions genders;
};

/// getopt's letters of the options apply_reach_option() takes.
inline constexpr std::string_view kReachOptions = "l:t:u:f:w:x:R:g:X:aAiF:";

/// The lines of `-h` for the genders options, after pdsh's own.
inline constexpr const char* kGendersUsage =
    "Genders module (environment: PDSH_GENDERS_FILE PDSH_GENDERS_DIR):\n"
    "-g query,...      target nodes using genders query\n"
    "-X query,...      exclude nodes using genders query\n"
    "-F file           use alternate genders file `file'\n"
    "-i                request alternate or canonical hostnames if applicable\n"
    "-a                target all nodes except those with \"pdsh_all_skip\" attribute\n"
    "-A                target all nodes listed in genders database\n";

/// The environment's settings, read before the command line so that the command line wins.
/// Throws UsageError for a bad number or rcmd module.
void read_reach_environment(PdshReach& reach);

/// Applies one of kReachOptions (`c`, its argument `arg`); false for any other letter.
bool apply_reach_option(int c, std::string_view arg, PdshReach& reach);

/// A host named twice: pdsh runs it twice (what pdsh does); pdcp copies to it once.
enum class Duplicates { keep, drop };

/// The hosts of pdsh's -w and -x rules (core/pdsh_hosts.h; WCOLL without a -w host; without -w,
/// the genders options' hosts, else $PDX_HOSTS read by pdx's rules as pdx reads it), then as the
/// genders options filter them (core/genders.h; a warning for pdsh_rcmd_type's other modules),
/// their rcmd module (-R, or the rcmd: of every host), the transport, and a job template with the
/// user (-l, else $USER) and the timeouts. Throws UsageError for no hosts, or hosts of two rcmd
/// modules (pdx runs one per run).
struct PdshRun {
  std::vector<Host> hosts;
  PdshRcmd rcmd = PdshRcmd::ssh;
  std::unique_ptr<Transport> transport;
  JobTemplate tmpl;
};
PdshRun pdsh_run(const PdshReach& reach, Duplicates duplicates = Duplicates::drop);

/// The hosts pdsh_run() would run on (-q, -Q), without a transport; reads "-w -" from stdin.
std::vector<Host> pdsh_hosts(const PdshReach& reach, Duplicates duplicates, PdshRcmd* rcmd);

/// What -q lists of pdsh's, pdcp's and rpdcp's options that `reach` holds, and its hosts (a host
/// named twice as `duplicates` says); argv0 made absolute as pdsh's _find_path makes it.
PdshListing reach_listing(const PdshReach& reach, const char* argv0, Duplicates duplicates);

/// -V of pdsh, pdcp and rpdcp: the pdsh version pdx stands in for, and its rcmd modules.
void print_pdsh_version();

/// "option -X needs an argument; see 'NAME -h'" or "NAME option -X is unknown ...", as a
/// UsageError, for getopt's ':' and '?' returns.
[[noreturn]] void throw_option_error(int c, int optopt_letter, std::string_view program);

}  // namespace pdx
