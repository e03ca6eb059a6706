// pdx started as `pdsh` (a link): pdsh 2.34's command line, environment, output and exit
// status, over pdx's own ssh client (pdx(1), PDSH COMPATIBILITY). What DeepSpeed's PDSHRunner
// and Accelerate run: pdsh -S -f 1024 -w host1,host2 export K="V"; cd DIR; python3 ... %n ...
#include <getopt.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
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

constexpr const char* kPdshUsage =
    "Usage: pdsh [-options] command ...\n"
    "pdsh as pdx runs it (pdx(1), PDSH COMPATIBILITY):\n"
    "-S                return largest of remote command return values\n"
    "-h                output usage menu and quit\n"
    "-V                output version information and quit\n"
    "-q                list the option settings and quit\n"
    "-Q                list the target hosts and quit\n"
    "-L                list info on all loaded modules and quit\n"
    "-d                print timing statistics at the end\n"
    "-b                disable ^C status feature (batch mode)\n"
    "-l user           execute remote commands as user\n"
    "-t seconds        set connect timeout (default is 10 sec)\n"
    "-u seconds        set command timeout (no default)\n"
    "-f n              use fanout of n nodes\n"
    "-w host,host,...  set target node list on command line (^FILE, -, /REGEX/, rcmd:user@host)\n"
    "-x host,host,...  set node exclusion list on command line\n"
    "-R name           set rcmd module to name: ssh (default) or exec\n"
    "-N                disable hostname: labels on output lines\n"
    "Environment: PDSH_RCMD_TYPE PDSH_SSH_ARGS PDSH_SSH_ARGS_APPEND WCOLL FANOUT\n"
    "             PDSH_CONNECT_TIMEOUT PDSH_COMMAND_TIMEOUT\n";

enum class Listing { none, options, hosts };  // -q, -Q

struct PdshOptions {
  PdshReach reach;
  Prefix prefix = Prefix::yes;
  Strict strict = Strict::no;
  Listing listing = Listing::none;
  bool debug = false;              // -d
  bool sigint_terminates = false;  // -b: the first Ctrl-C aborts
  std::vector<std::string> words;  // the remote command's arguments
};

// pdsh's options end at the first word that is not one ("+" in getopt's string), so the remote
// command's own options stay its own. Returns an exit status for -h, -V and -L.
std::optional<int> parse_command_line(int argc, char** argv, PdshOptions& o) {
  opterr = 0;  // our own one-line errors
  optind = 1;
  const std::string letters = "+:hVSbdNqQL" + std::string(kReachOptions);
  for (int c; (c = getopt(argc, argv, letters.c_str())) != -1;) {
    std::string_view arg = optarg ? optarg : "";
    switch (c) {
      case 'h':
        std::fputs(kPdshUsage, stderr);  // as pdsh: usage on stderr, status 1
        std::fputs(kGendersUsage, stderr);
        return kExitFailure;
      case 'V':
        print_pdsh_version();
        return kExitOk;
      case 'L':
        std::fputs(pdsh_module_listing().c_str(), stdout);
        return kExitOk;
      case 'q':
        if (o.listing == Listing::none) o.listing = Listing::options;
        break;
      case 'Q':
        o.listing = Listing::hosts;
        break;
      case 'S':
        o.strict = Strict::yes;
        break;
      case 'b':
        o.sigint_terminates = true;
        break;
      case 'd':
        o.debug = true;
        break;
      case 'N':
        o.prefix = Prefix::no;
        break;
      default:
        if (!apply_reach_option(c, arg, o.reach)) throw_option_error(c, optopt, "pdsh");
    }
  }
  o.words.assign(argv + optind, argv + argc);  // none: interactive mode
  return std::nullopt;
}

// ssh hands the words, joined by spaces, to the remote user's shell (DeepSpeed quotes for that);
// exec runs them as they are, which /bin/sh -c does with each word quoted and `exec`, so that
// the command is the shell's own process and its signal its own, as under pdsh.
std::string command_of(const std::vector<std::string>& words, PdshRcmd rcmd) {
  if (rcmd == PdshRcmd::ssh) return join(words, " ");
  std::vector<std::string> quoted;
  for (const auto& word : words) quoted.push_back(shell_quote(word));
  return "exec " + join(quoted, " ");
}

int list_options(const PdshOptions& o, const char* argv0) {
  PdshListing l = reach_listing(o.reach, argv0, Duplicates::keep);
  l.command = join(o.words, " ");
  l.sigint_terminates = o.sigint_terminates;
  l.labels = o.prefix == Prefix::yes;
  l.debug = o.debug;
  l.expanded = o.listing == Listing::hosts;
  std::fputs(pdsh_listing(l).c_str(), stdout);
  return kExitOk;
}

std::string short_host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::string host = name;
  return host.substr(0, host.find('.'));
}

// pdsh's Ctrl-C (its dsh.c, _handle_sigint): the first SIGINT lists the hosts still running and
// the run goes on; another within 1 s, or the first under -b, stops it ("interrupt, aborting.",
// status 1). SIGTERM and SIGHUP always stop it (DeepSpeed sends SIGINT, then SIGTERM 0.1 s
// later), as pdx's own runs stop. Called from the executor's signal thread.
class Interrupts {
 public:
  Interrupts(std::string node, const std::vector<std::string>& labels, bool batch)
      : node_(std::move(node)), labels_(labels), batch_(batch) {}

  bool operator()(int signal, const std::vector<std::size_t>& running) {
    if (signal != SIGINT) {
      terminated_ = signal;
      return true;
    }
    auto now = std::chrono::steady_clock::now();
    if (batch_ || (last_ && now - *last_ <= std::chrono::seconds(1))) {
      say(batch_ ? "batch mode interrupt, aborting.\n" : "interrupt, aborting.\n");
      aborted_ = true;
      return true;
    }
    last_ = now;
    std::string lines = "pdsh@" + node_ + ": interrupt (one more within 1 sec to abort)\n";
    for (std::size_t i : running)
      lines += "pdsh@" + node_ + ": " + labels_[i] + ": command in progress\n";
    say_raw(lines);
    return false;
  }

  bool aborted() const { return aborted_; }
  int terminated() const { return terminated_; }  // the SIGTERM or SIGHUP, or 0

 private:
  void say(std::string_view what) { say_raw("pdsh@" + node_ + ": " + std::string(what)); }
  static void say_raw(const std::string& lines) {  // one write: the sink writes stderr too
    if (write(STDERR_FILENO, lines.data(), lines.size()) < 0) return;
  }

  std::string node_;
  const std::vector<std::string>& labels_;
  bool batch_;
  std::optional<std::chrono::steady_clock::time_point> last_;
  std::atomic<bool> aborted_{false};
  std::atomic<int> terminated_{0};
};

// The hosts, resolved once for every command of an interactive session.
struct Target {
  PdshRun run;
  std::vector<std::string> labels;
  std::string node = short_host_name();
};

// One command on every host, as pdsh's dsh(): its exit status, 1 when aborted by Ctrl-C (pdsh's
// errx()), 128 + N when stopped by SIGTERM or SIGHUP (N), as the shell reports a pdsh they
// killed; `terminated` tells the last.
int run_command(const PdshOptions& o, Target& t, const std::string& command,
                const std::string& program, bool& terminated) {
  PdshRcmd rcmd = t.run.rcmd;
  PdshNames names{t.node, rcmd == PdshRcmd::ssh ? "ssh" : program};
  auto sink = make_pdsh_sink(t.labels, o.prefix, names, rcmd);

  JobTemplate tmpl = t.run.tmpl;
  tmpl.command = command;
  tmpl.substitute = true;  // over ssh too, as pdsh does
  // No stdin: pdsh sends none; the commands read EOF.
  std::vector<Job> jobs = make_jobs(t.run.hosts, tmpl);

  Interrupts interrupts(t.node, t.labels, o.sigint_terminates);
  std::vector<HostResult> results =
      execute(*t.run.transport, jobs, *sink, {o.reach.fanout, 0}, std::ref(interrupts));
  terminated = interrupts.terminated() != 0;
  if (auto lost = sink->error()) {                    // the run was stopped for it
    if (lost->broken_pipe()) return kExitBrokenPipe;  // silent, as coreutils are
    throw FatalError(lost->message());
  }
  if (interrupts.aborted()) return kExitFailure;
  if (terminated) return 128 + interrupts.terminated();
  if (o.debug) std::fputs(pdsh_debug_stats(results).c_str(), stderr);
  return pdsh_exit_status(results, o.strict, rcmd);
}

// pdsh's shell escape (its _shell()): "!cmd" runs cmd here; a status not 0 is reported as
// pdsh reports it, the raw wait status.
void run_locally(const std::string& command, const std::string& node) {
  std::fflush(stdout);
  int status = std::system(command.c_str());
  if (status != 0) std::fprintf(stderr, "pdsh@%s: exited with status %d\n", node.c_str(), status);
}

// pdsh with no command: reads commands at a "pdsh> " prompt on stdout until EOF, `exit` or
// `quit`, and runs each on every host. Off a terminal, each line is echoed after the prompt,
// as Debian's pdsh (readline) does. Exits 0, as pdsh; a SIGTERM or SIGHUP ends the session.
int interactive(const PdshOptions& o, Target& t, const char* argv0) {
  std::string prompt = std::filesystem::path(argv0).filename().string() + "> ";
  bool echo = !isatty(STDIN_FILENO);
  for (std::string line;;) {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
    if (!std::getline(std::cin, line)) return kExitOk;
    if (echo) std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (trim(line).empty()) continue;
    if (line == "exit" || line == "quit") return kExitOk;
    if (line.starts_with('!')) {
      run_locally(line.substr(1), t.node);
      continue;
    }
    // exec: the line run by `sh -c`, as pdsh's exec module runs a line (its failures "sh ...").
    bool terminated = false;
    int status = run_command(o, t, line, "sh", terminated);
    if (terminated || status == kExitBrokenPipe) return status;
  }
}

}  // namespace

int cmd_pdsh(int argc, char** argv) {
  PdshOptions o;
  read_reach_environment(o.reach);
  if (auto status = parse_command_line(argc, argv, o)) return *status;
  if (o.listing != Listing::none) return list_options(o, argv[0]);

  Target t;
  t.run = pdsh_run(o.reach, Duplicates::keep);  // pdsh runs a host named twice twice
  t.labels = pdsh_labels(t.run.hosts);
  if (o.words.empty()) return interactive(o, t, argv[0]);
  bool terminated = false;
  return run_command(o, t, command_of(o.words, t.run.rcmd), o.words.front(), terminated);
}

}  // namespace pdx
