#pragma once
// In every binary that may be deployed as this build's agent (pdx, pdx-static, pdx-agent): what
// pdx looks for in the binaries beside it before it sends one to a host
// (distribute/remote_agent.h), so that another version's, or one built from other sources of
// the agent (a stale pdx-static or pdx-agent of the same version), is never sent. A binary
// holds it where its code uses it: remote_agent's search for it, pdx-agent's --version.
#include <string_view>

namespace pdx {

/// "pdx agent of version VERSION of sources HASH" and its NUL, HASH the first 16 hex digits of a
/// SHA-256 of what pdx-agent is built from (agent/, archive/, hash/, base/ and its command in
/// cmd/), taken when cmake configures (an edit to one of them configures again:
/// agent/CMakeLists.txt).
std::string_view agent_version_mark();

}  // namespace pdx
