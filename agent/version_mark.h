#pragma once
// In every binary that may be deployed as this version's agent (pdx, pdx-static, pdx-agent), NUL
// included: what pdx looks for in the binaries beside it before it sends one to a host
// (distribute/remote_agent.h), so that another version's is never sent. A binary holds it where
// its code uses it: remote_agent's search for it, pdx-agent's --version.
namespace pdx {

inline constexpr char kAgentVersionMark[] = "pdx agent of version " PDX_VERSION;

}  // namespace pdx
