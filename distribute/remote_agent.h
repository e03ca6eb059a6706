#pragma once
// How `pdx agent` is started on a host: the sh command lines pdx sends (every path in them
// quoted by base/quote.h), and the self-deploy: a pdx binary kept on each host as
// ~/.cache/pdx/<its SHA-256>/pdx, uploaded once per host and binary, and run only while it is what
// was uploaded (its size and SHA-256) in a chain of directories that only the user can change. The
// binary is pdx-agent (the agent alone, built beside pdx and installed in lib/pdx/) without its
// symbols, else a copy of this pdx without its symbols (distribute/agent_package.h; 4.5 MB, 2.1 MB
// gzip-compressed), else this pdx itself; where the host cannot run it (the dynamic loader's exit
// 127: pdx's libraries missing there), this build's static build when one sits beside this pdx
// (pdx-static, cmake -DPDX_STATIC=ON; 11 MB, 5.0 MB gzip-compressed) is uploaded beside it, and
// run there from then on. Each travels gzip-compressed where the host has gzip.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

/// The exit status of a command when the host has no deployed agent yet.
inline constexpr int kAgentMissing = 97;
/// ... when the host's copy is not what was uploaded, or lies where others could change it.
inline constexpr int kAgentUntrusted = 94;
/// ... when the host's copy is what was uploaded but cannot be executed (a noexec mount).
inline constexpr int kAgentNoExec = 96;
/// ... when an upload of the gzip-compressed agent finds no gzip on the host (nothing read).
inline constexpr int kNoGzip = 95;
/// ... when the host's copy of the static build (run since it is there) is not what was uploaded.
inline constexpr int kStaticUntrusted = 93;

struct AgentLocation {
  std::string installed;  // --agent PATH; empty: the self-deployed copy of this binary
  std::string binary;     // the binary to deploy, here (for the upload)
  std::string sha256;     // of `binary`
  std::uint64_t size = 0;
  std::string gzipped;  // `binary` gzip-compressed, here, to upload instead; "" if none
  // The static build, uploaded where the host cannot run `binary` (pdx's libraries missing
  // there) and run there from then on; null if none.
  std::shared_ptr<const AgentLocation> fallback;
};

/// With `installed` (--agent PATH), that; else deployable_agent() of this process's binary, with
/// the copies kept in local_agent_cache() (distribute/agent_package.h).
Result<AgentLocation> locate_agent(std::string installed);

/// The binary to deploy for the pdx at `self`, hashed: the first of DIR/pdx-agent and
/// DIR/../lib/pdx/pdx-agent built from this pdx's agent sources (the agent alone, 1.7 MB without
/// its symbols), else `self`; with a `cache`, without its symbols kept there; and as its fallback
/// the first of DIR/pdx-static (the build directory) and DIR/../lib/pdx/pdx-static (cmake
/// --install, the .deb) built from this pdx's agent sources, DIR being the directory of `self`'s
/// real path. When that static build is not larger (or is `self`), it alone. With a `cache`, their
/// gzip copies too.
Result<AgentLocation> deployable_agent(const std::string& self, const std::string& cache = "");

/// Whether an agent command's exit status asks for an upload (kAgentMissing, kAgentUntrusted).
inline bool agent_upload_needed(int exit_status) {
  return exit_status == kAgentMissing || exit_status == kAgentUntrusted;
}

/// `pdx agent ARGS...` on the host. Self-deployed, without reading its stdin: runs the copy of
/// the fallback (the static build) where it is there, else the copy of the binary; exits
/// kAgentMissing when that copy is not there; kAgentUntrusted when ~/.cache/pdx, its directory
/// or the copy is a symlink, not the user's or writable by group or others, or the copy is not
/// of the uploaded size and SHA-256 (where sha256sum exists), or the host's find cannot say,
/// kStaticUntrusted instead for the static build's; kAgentNoExec when the copy is all
/// that but cannot be executed (so that no upload is tried again). Else truncates `used` beside
/// it, the mark of its last use, and runs it.
std::string agent_command(const AgentLocation& agent, const std::vector<std::string>& args);

/// Reads the binary on stdin (gzip-compressed, unpacked by gzip -dc, with `gzipped`; exits
/// kNoGzip without reading where there is no gzip) into the cache directory under a temporary
/// name, writing `u` on stdout first (it reads from then on: the sender may start), checks its
/// SHA-256 (its size alone where there is no sha256sum), makes it 0755 and renames it
/// into place, after removing a symlink or a directory that is not the user's in its way (never
/// following one) and taking group and others' write permission from the directories; then
/// removes the temporaries of killed uploads (a day old) and the other versions' copies but the
/// 3 used last and those running (silently, never failing).
std::string upload_command(const AgentLocation& agent, bool gzipped);

}  // namespace pdx
