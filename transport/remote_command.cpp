#include "transport/remote_command.h"

#include "base/quote.h"

namespace pdx {

namespace {

// Grace between pdx giving up on a host (-u) and the host killing the command itself, so pdx
// reports "command timed out" rather than a signal that raced it.
constexpr std::chrono::milliseconds kRemoteKillGrace{2000};

}  // namespace

std::string remote_command(const ExecRequest& request) {
  return export_prefix(request.env) + (request.timeout.count() > 0
                                           ? with_remote_deadline(request.command, request.timeout)
                                           : request.command);
}

std::string export_prefix(const std::vector<EnvVar>& env) {
  if (env.empty()) return {};
  std::string out = "export";
  for (const auto& [key, value] : env) out += " " + key + "=" + shell_quote(value);
  out += "; ";
  return out;
}

std::string with_remote_deadline(const std::string& command, std::chrono::milliseconds timeout) {
  auto ms = timeout + kRemoteKillGrace;
  std::string seconds =
      std::to_string(ms.count() / 1000) + "." + std::to_string(ms.count() % 1000 / 100);
  return "if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL " + seconds +
         " \"${SHELL:-/bin/sh}\" -c " + shell_quote(command) + "; fi\n" + command;
}

}  // namespace pdx
