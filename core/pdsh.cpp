#include "core/pdsh.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>

#include "base/error.h"
#include "base/strings.h"
#include "core/pdsh_hosts.h"
#include "core/summary.h"
#include "transport/signals.h"

namespace pdx {

namespace {

constexpr int kPdshFailed = 254;  // pdsh's RC_FAILED: a host that timed out under -S

bool is_address(const std::string& name) {
  unsigned char buf[16];
  return inet_pton(AF_INET, name.c_str(), buf) == 1 || inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

// ssh's options that take an argument (ssh(1) SYNOPSIS); every other letter is a flag.
constexpr std::string_view kSshOptionsWithArgument = "BbcDEeFIiJLlmOoPpQRSWw";

int parse_port(std::string_view text, std::string_view source) {
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535)
    throw UsageError(std::string(source) + ": bad port '" + std::string(text) + "'");
  return port;
}

void apply_ssh_option(char letter, std::string_view value, std::string_view source,
                      SshOptions& ssh) {
  switch (letter) {
    case 'p':
      ssh.port = parse_port(value, source);
      break;
    case 'l':
      if (value.find('%') == std::string_view::npos) ssh.user = value;  // not pdsh's "-l%u"
      break;
    case 'i':
      ssh.identity_files.emplace_back(value);
      break;
    case 'o':
      ssh.options.emplace_back(value);
      break;
    case 'F':
      ssh.config_file = value;
      break;
    case 'J':
      ssh.jump_hosts = value;
      break;
    default:
      break;  // no meaning for pdx's client (-c, -L, ...)
  }
}

}  // namespace

std::vector<std::string> pdsh_labels(const std::vector<Host>& hosts) {
  std::optional<std::string_view> domain;  // the one domain seen so far
  bool cut = true;
  for (const auto& host : hosts) {
    auto dot = host.name.find('.');
    if (dot == std::string::npos) continue;
    std::string_view its = std::string_view(host.name).substr(dot + 1);
    if (is_address(host.name) || (domain && *domain != its)) cut = false;
    domain = its;
  }
  std::vector<std::string> labels;
  labels.reserve(hosts.size());
  for (const auto& host : hosts)
    labels.push_back(cut ? host.name.substr(0, host.name.find('.')) : host.name);
  return labels;
}

void apply_ssh_args(std::string_view args, std::string_view source, SshOptions& ssh) {
  std::vector<std::string_view> words = split_blanks(args);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word.size() < 2 || word[0] != '-') continue;  // "%h", a host name
    for (std::size_t j = 1; j < word.size(); ++j) {   // -2ax: flags may share one dash
      char letter = word[j];
      if (kSshOptionsWithArgument.find(letter) == std::string_view::npos) continue;
      std::string_view value = word.substr(j + 1);
      if (value.empty()) {
        if (++i == words.size())
          throw UsageError(std::string(source) + ": option -" + letter + " needs an argument");
        value = words[i];
      }
      apply_ssh_option(letter, value, source, ssh);
      break;
    }
  }
}

std::string pdsh_failure_lines(const PdshNames& names, std::string_view label,
                               const HostResult& result, PdshRcmd rcmd) {
  if (result.failure == Failure::interrupted) return {};
  std::string head = "pdsh@" + names.node + ": " + std::string(label) + ": ";
  if (result.failure == Failure::command_timeout) return head + "command timeout\n";
  std::string why;
  if (result.failure != Failure::none)
    why = std::string(label) + ": pdx: " + describe(result) + "\n";
  else if (!result.signal.empty() && rcmd == PdshRcmd::exec)
    return head + names.program + " killed by signal " +
           std::to_string(signal_number(result.signal)) + "\n";
  int status = result.failure != Failure::none || !result.signal.empty() ? kExitUnreachable
                                                                         : result.exit_status;
  if (status == 0) return {};
  return why + head + names.program + " exited with exit code " + std::to_string(status) + "\n";
}

int pdsh_exit_status(const std::vector<HostResult>& results, Strict strict, PdshRcmd rcmd) {
  if (strict == Strict::no) return 0;
  int status = 0;
  for (const auto& r : results) {
    int its = exit_status_of(r);
    if (r.failure == Failure::none && !r.signal.empty())
      its = rcmd == PdshRcmd::ssh ? int(kExitUnreachable) : 0;
    // pdsh: 254 for a host timed out, unless ssh, killed, exited 255 (exec's: killed, 0).
    if (r.failure == Failure::command_timeout)
      its = rcmd == PdshRcmd::ssh ? int(kExitUnreachable) : kPdshFailed;
    status = std::max(status, its);
  }
  return status;
}

std::string pdsh_listing(const PdshListing& l) {
  auto yes = [](bool b) { return std::string(b ? "Yes" : "No"); };
  auto none = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
  std::string out;
  if (l.copy) {
    out += "-- PCP-specific options --\n";
    out += "Infile(s)\t\t" + join(l.copy->sources, ", ") + "\n";
    out += "Outfile\t\t\t" + l.copy->dest + "\n";
    out += "Recursive\t\t" + yes(l.copy->recursive) + "\n";
    out += "Preserve mod time/mode\t" + yes(l.copy->preserve) + "\n";
  } else {
    out += "-- DSH-specific options --\n";
    out += "Separate stderr/stdout\tYes\n";
    out += "Path prepended to cmd\tnone\n";
    out += "Appended to cmd         none\n";
    out += "Command:\t\t" + none(l.command) + "\n";
  }
  out += "Full program pathname\t" + none(l.program_path) + "\n";
  out += "Remote program path\t" + none(l.program_path) + "\n";
  out += "\n-- Generic options --\n";
  out += "Local username\t\t" + l.local_user + "\n";
  out += "Local uid     \t\t" + std::to_string(l.local_uid) + "\n";
  out += "Remote username\t\t" + l.remote_user + "\n";
  out += "Rcmd type\t\t" + l.rcmd + "\n";
  out += "one ^C will kill pdsh   " + yes(l.sigint_terminates) + "\n";
  out += "Connect timeout (secs)\t" + std::to_string(l.connect_timeout) + "\n";
  out += "Command timeout (secs)\t" + std::to_string(l.command_timeout) + "\n";
  out += "Fanout\t\t\t" + std::to_string(l.fanout) + "\n";
  out += "Display hostname labels\t" + yes(l.labels) + "\n";
  out += "Debugging       \t" + yes(l.debug) + "\n";
  out += "\n-- Target nodes --\n";
  out += (l.expanded ? join(l.hosts, ",") : pdsh_ranged_string(l.hosts)) + "\n";
  return out;
}

std::string pdsh_module_listing() {
  return "3 modules loaded:\n\n"
         "Module: rcmd/exec\n"
         "Author: pdx\n"
         "Descr:  arbitrary command rcmd connect method (pdx: run here by /bin/sh)\n"
         "Active: yes\n\n"
         "Module: misc/genders\n"
         "Author: pdx\n"
         "Descr:  target nodes using libgenders and genders attributes\n"
         "Active: yes\n"
         "Options:\n\n"
         "Module: rcmd/ssh\n"
         "Author: pdx\n"
         "Descr:  ssh based rcmd connect method (pdx: its own ssh client)\n"
         "Active: yes\n\n";
}

std::string pdsh_debug_stats(const std::vector<HostResult>& results) {
  long total = 0, min = 0, max = 0;
  std::size_t done = 0, failed = 0, canceled = 0;
  for (const auto& r : results) {
    if (r.failure == Failure::interrupted) {
      ++canceled;
      continue;
    }
    if (r.failure != Failure::none) {
      ++failed;
      continue;
    }
    long seconds = long(std::chrono::duration_cast<std::chrono::seconds>(r.duration).count());
    min = done == 0 ? seconds : std::min(min, seconds);
    max = std::max(max, seconds);
    total += seconds;
    ++done;
  }
  std::string out;
  if (done > 0) {
    auto line = [&](const char* what, long avg, long lo, long hi) {
      out += std::string(what) + "  Avg: " + std::to_string(avg) +
             " sec, Min: " + std::to_string(lo) + " sec,  Max: " + std::to_string(hi) + " sec\n";
    };
    line("Connect time:", 0, 0, 0);
    line("Command time:", total / long(done), min, max);
  } else {
    out += "Connect time:  no sucesses\nCommand time:  no sucesses\n";  // pdsh's spelling
  }
  out += "Failures:      " + std::to_string(failed) + "\n";
  if (canceled > 0) out += "Canceled:      " + std::to_string(canceled) + "\n";
  return out;
}

}  // namespace pdx
