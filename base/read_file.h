#pragma once
// Reading a small text file whole (ssh_config, known_hosts, an identity, a hostfile, an
// --env-file): only a regular file, and only up to a size, or a character device that reads
// empty (/dev/null, as OpenSSH reads it). A directory, /dev/zero or a FIFO named by mistake is an
// error at once, not an empty file, an endless read or a hang.
#include <cstddef>
#include <string>

#include "base/result.h"

namespace pdx {

inline constexpr std::size_t kTextFileMax = 64 << 20;  // 64 MiB

/// What a missing file reads as.
enum class IfMissing { error, empty };

/// The regular file at `path` (or "" for /dev/null), read into a buffer of its size (a private key
/// leaves no partial copies behind). Error: why not, without the path ("is a directory", "not a
/// regular file", "over 64 MiB", strerror), for the caller to say which file it was and what for.
Result<std::string> read_text_file(const std::string& path, IfMissing missing = IfMissing::error,
                                   std::size_t max = kTextFileMax);

/// The same for a file already open (from its offset 0, with pread: the offset is left as is).
Result<std::string> read_text_fd(int fd, std::size_t max = kTextFileMax);

}  // namespace pdx
