#pragma once
// How `pdx agent` is started on a host: the sh command lines pdx sends (every path in them
// quoted by base/quote.h), and the self-deploy: a pdx binary kept on each host as
// ~/.cache/pdx/<its SHA-256>/pdx, uploaded once per host and binary. The binary is this
// version's static build when one sits beside this pdx (pdx-static, cmake -DPDX_STATIC=ON: it
// runs on hosts without pdx's libraries), else this pdx itself.
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

/// The exit status of a command when the host has no deployed agent yet.
inline constexpr int kAgentMissing = 97;

struct AgentLocation {
  std::string installed;  // --agent PATH; empty: the self-deployed copy of this binary
  std::string binary;     // the binary to deploy, here (for the upload)
  std::string sha256;     // of `binary`
  std::uint64_t size = 0;
};

/// With `installed` (--agent PATH), that; else deployable_agent() of this process's binary.
Result<AgentLocation> locate_agent(std::string installed);

/// The binary to deploy for the pdx at `self`, hashed: the first of DIR/pdx-static (the build
/// directory) and DIR/../lib/pdx/pdx-static (cmake --install, the .deb) that is a build of this
/// pdx version, DIR being the directory of `self`'s real path; else `self`.
Result<AgentLocation> deployable_agent(const std::string& self);

/// `pdx agent ARGS...` on the host. Self-deployed: exits kAgentMissing when the copy is not
/// there (or not executable), without reading its stdin; else truncates `used` beside it, the
/// mark of its last use.
std::string agent_command(const AgentLocation& agent, const std::vector<std::string>& args);

/// Reads the binary on stdin into the cache directory under a temporary name, checks its size
/// (and SHA-256 where sha256sum exists), makes it 0755 and renames it into place; then removes
/// the temporaries of killed uploads (a day old) and the other versions' copies but the 3 used
/// last and those running (silently, never failing).
std::string upload_command(const AgentLocation& agent);

}  // namespace pdx
