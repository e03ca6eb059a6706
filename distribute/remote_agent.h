#pragma once
// How `pdx agent` is started on a host: the sh command lines pdx sends (every path in them
// quoted by base/quote.h), and the self-deploy: pdx's own binary kept on each host as
// ~/.cache/pdx/<its SHA-256>/pdx, uploaded once per host and pdx version.
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

/// The exit status of a command when the host has no deployed agent yet.
inline constexpr int kAgentMissing = 97;

struct AgentLocation {
  std::string installed;  // --agent PATH; empty: the self-deployed copy of this binary
  std::string binary;     // this pdx binary, here (for the upload)
  std::string sha256;     // of `binary`
  std::uint64_t size = 0;
};

/// With `installed` (--agent PATH), that; else this process's own binary (/proc/self/exe),
/// hashed, to deploy.
Result<AgentLocation> locate_agent(std::string installed);

/// `pdx agent ARGS...` on the host. Self-deployed: exits kAgentMissing when the copy is not
/// there (or not executable), without reading its stdin.
std::string agent_command(const AgentLocation& agent, const std::vector<std::string>& args);

/// Reads the binary on stdin into the cache directory under a temporary name, checks its size
/// (and SHA-256 where sha256sum exists), makes it 0755 and renames it into place.
std::string upload_command(const AgentLocation& agent);

}  // namespace pdx
