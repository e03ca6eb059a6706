#pragma once
// The agent as it travels to a host (distribute/remote_agent.h): without its symbols and
// gzip-compressed, each made once here and kept in ~/.cache/pdx/sent/ (the host unpacks it with
// gzip -dc and checks its size and SHA-256 before it installs it). Where a copy
// cannot be made (no objcopy, no writable home), nullopt: the file itself is sent instead.
#include <optional>
#include <string>
#include <string_view>

namespace pdx {

/// Where the copies are kept: $HOME/.cache/pdx/sent; "" without $HOME.
std::string local_agent_cache();

/// The binary at `path` without its symbols (objcopy --strip-all, when on PATH), kept in `cache`
/// under a name made of the binary's size, mtime and inode (so that it is not hashed again).
std::optional<std::string> stripped_copy(const std::string& path, const std::string& cache);

/// The file at `path` (SHA-256 `sha256`) gzip-compressed by pdx's own compressor, kept in `cache`
/// as SHA256.gz; the copies of other files not used for a day, but the one of SHA-256 `keep`,
/// removed.
std::optional<std::string> gzipped_copy(const std::string& path, const std::string& sha256,
                                        const std::string& cache, std::string_view keep = "");

}  // namespace pdx
