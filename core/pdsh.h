#pragma once
// What pdsh 2.34 does differently from pdx, for pdx started under the name `pdsh` (cmd/pdsh.cpp):
// how it names hosts in output, which ssh options its environment carries, what it prints on
// stderr for a host that failed, and its exit status. Checked against Debian's pdsh 2.34.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hostset.h"
#include "core/output.h"
#include "transport/ssh_options.h"
#include "transport/transport.h"

namespace pdx {

/// pdsh's rcmd modules pdx has: ssh (pdx's own client) and exec (run here).
enum class PdshRcmd { ssh, exec };

/// -S or not: without it pdsh exits 0 whatever the hosts did.
enum class Strict { yes, no };

/// The hosts as pdsh labels their output lines: when every name holding a '.' is in one and the
/// same domain (the part after the first '.'), and none is an IP address, names are cut at their
/// first '.' (node1.example.com,node2.example.com,gw -> node1 node2 gw); else they stay whole.
std::vector<std::string> pdsh_labels(const std::vector<Host>& hosts);

/// Applies the ssh options in `args` (PDSH_SSH_ARGS, PDSH_SSH_ARGS_APPEND: an ssh command line
/// without the command) to `ssh`, in order, as ssh would: -p PORT, -l USER (not pdsh's own
/// "-l%u"), -i FILE, -o OPTION, -F FILE, -J HOPS (ProxyJump), glued (-p2222) or apart
/// (-p 2222). Other ssh options and their arguments mean nothing for pdx's client and are
/// skipped, as are words that are not options ("%h"). Throws UsageError naming `source` for a bad port or a missing argument.
void apply_ssh_args(std::string_view args, std::string_view source, SshOptions& ssh);

/// What pdsh prints on stderr for a host that did not exit 0, "" for one that did:
///   "pdsh@NODE: LABEL: ssh exited with exit code 3\n"    (exec: the command's first word)
/// A host pdx could not reach or lost says why first, as ssh would on the host's stderr:
///   "LABEL: pdx: connect to ... refused\npdsh@NODE: LABEL: ssh exited with exit code 255\n"
/// ssh reports a command killed by a signal as exit code 255; exec: "NAME killed by signal N".
struct PdshNames {
  std::string node;     // this machine's short host name: pdsh@NODE
  std::string program;  // "ssh", or under exec the command's first word
};
std::string pdsh_failure_lines(const PdshNames& names, std::string_view label,
                               const HostResult& result, PdshRcmd rcmd);

/// pdsh's exit status: 0 without -S; with -S the largest remote status, where a host not reached
/// counts 255 and (ssh) a command killed by a signal 255, as ssh exits; (exec) a command killed
/// by a signal 0, as pdsh's exec module reads it; a command timeout (-u) 254 under exec, 255
/// over ssh (pdsh's 254, then ssh's 255 for the ssh it killed).
int pdsh_exit_status(const std::vector<HostResult>& results, Strict strict, PdshRcmd rcmd);

/// "host: line" output (labels cut or not by `prefix`, -N) where a host's last line is printed
/// as the host sent it, with no newline added, and pdsh_failure_lines() on stderr as each host
/// finishes (pdsh prints them as hosts end, not at the end of the run).
std::unique_ptr<OutputSink> make_pdsh_sink(std::vector<std::string> labels, Prefix prefix,
                                           PdshNames names, PdshRcmd rcmd, OutputFds fds = {});

/// What pdsh -q and -Q print (its opt_list()): the option values, then the hosts, folded as
/// pdsh folds them (-q) or one by one (-Q, `expanded`).
struct PdshListing {
  /// pdcp's and rpdcp's -q: its "PCP-specific options" instead of pdsh's DSH ones.
  struct Copy {
    std::vector<std::string> sources;
    std::string dest;
    bool recursive = false, preserve = false;
  };
  std::optional<Copy> copy;
  std::string command;       // the words joined by spaces; "" none
  std::string program_path;  // pdsh's "Full program pathname" (and remote program path)
  std::string local_user, remote_user;
  unsigned local_uid = 0;
  std::string rcmd;                // "ssh" or "exec"
  bool sigint_terminates = false;  // -b
  long connect_timeout = 10, command_timeout = 0;
  std::size_t fanout = 32;
  bool labels = true, debug = false;
  std::vector<std::string> hosts;
  bool expanded = false;
};
std::string pdsh_listing(const PdshListing& listing);

/// What pdsh -L prints: the pdsh modules pdx stands in for (rcmd/exec, rcmd/ssh), in its format.
std::string pdsh_module_listing();

/// pdsh -d's lines at the end of a run: connect and command times in whole seconds (pdx does
/// not time the connection apart: connect 0, command the host's whole time), hosts that failed
/// (not reached, timed out) and hosts never started or interrupted ("Canceled:").
std::string pdsh_debug_stats(const std::vector<HostResult>& results);

}  // namespace pdx
