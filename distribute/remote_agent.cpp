#include "distribute/remote_agent.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "archive/sha256.h"
#include "base/fd.h"
#include "base/quote.h"

namespace pdx {

namespace {

constexpr const char* kSelf = "/proc/self/exe";

std::string cache_dir(const AgentLocation& agent) {
  return "\"$HOME/.cache/pdx/" + agent.sha256 + "\"";  // a hex digest: nothing to quote
}

}  // namespace

Result<AgentLocation> locate_agent(std::string installed) {
  AgentLocation agent;
  agent.installed = std::move(installed);
  if (!agent.installed.empty()) return agent;  // nothing to deploy
  agent.binary = kSelf;
  Fd in(::open(kSelf, O_RDONLY | O_CLOEXEC));
  if (!in) return Error{std::string("cannot read this pdx binary: ") + std::strerror(errno)};
  Sha256 hash;
  std::string buffer(1 << 20, '\0');
  for (;;) {
    ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read this pdx binary: ") + std::strerror(errno)};
    if (n == 0) break;
    hash.update(buffer.data(), static_cast<std::size_t>(n));
    agent.size += static_cast<std::uint64_t>(n);
  }
  agent.sha256 = hash.hex_digest();
  return agent;
}

std::string agent_command(const AgentLocation& agent, const std::vector<std::string>& args) {
  std::string words = " agent";
  for (const auto& arg : args) words += " " + shell_quote(arg);
  if (!agent.installed.empty()) return "exec " + shell_quote(agent.installed) + words;
  return "p=" + cache_dir(agent) + "/pdx; [ -x \"$p\" ] || exit " + std::to_string(kAgentMissing) +
         "; exec \"$p\"" + words;
}

std::string upload_command(const AgentLocation& agent) {
  return "d=" + cache_dir(agent) + " && mkdir -p \"$d\" && t=\"$d/.pdx.$$\" && cat > \"$t\" && " +
         "[ $(wc -c < \"$t\") -eq " + std::to_string(agent.size) + " ] && " +
         "{ ! command -v sha256sum > /dev/null || [ \"$(sha256sum < \"$t\" | cut -c1-64)\" = " +
         agent.sha256 + " ]; } && chmod 0755 \"$t\" && mv -f \"$t\" \"$d/pdx\" || " +
         "{ rm -f \"$t\"; echo 'pdx: cannot install the agent in '\"$d\" >&2; exit 1; }";
}

}  // namespace pdx
