#include "core/pdsh.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "base/error.h"
#include "base/strings.h"
#include "core/summary.h"
#include "transport/signals.h"

namespace pdx {

namespace {

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
    default:
      break;  // no meaning for pdx's client (-c, -L, -J, ...)
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
    bool ssh_signal = rcmd == PdshRcmd::ssh && r.failure == Failure::none && !r.signal.empty();
    status = std::max(status, ssh_signal ? int(kExitUnreachable) : exit_status_of(r));
  }
  return status;
}

}  // namespace pdx
