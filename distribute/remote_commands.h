#pragma once
// The commands pull and verify run on the hosts through their POSIX tools (sh, GNU tar, find,
// xargs, sha256sum): every path in them quoted by base/quote.h, none able to pass for an option.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace pdx {

/// One tar stream of every REMOTE, each named relative to its parent directory:
/// "/var/log/train.log" as train.log, "out/run1" as run1/..., and "out/run1/" (a trailing slash:
/// its contents) as the files in it. An Error (bad_input) for an empty REMOTE or one ending in
/// "..". A `suffix` (".node1", for rpdcp) is added to each REMOTE's top name: train.log as
/// train.log.node1, run1/... as run1.node1/... (GNU tar's --transform; symlink targets kept).
/// With Directories::refused (rpdcp without -r) a REMOTE that is a directory on the host makes
/// the command fail before tar starts: "use -r to copy directories: REMOTE" on stderr, exit 1.
enum class Directories { copied, refused };
Result<std::string> pull_command(const std::vector<std::string>& remotes,
                                 std::string_view suffix = "",
                                 Directories directories = Directories::copied);

/// In REMOTE_DIR: "s SIZE NAME\0" for every regular file (find -printf, symlinks not
/// followed), then with `hash` "SHA256  ./NAME\0" for each (sha256sum -z, as many at once as the
/// host has cores, each batch's records kept whole in a file of a temporary directory until
/// all are done). Exit 3 when REMOTE_DIR is not a directory one can enter.
std::string verify_command(const std::string& remote_dir, bool hash);
inline constexpr int kNoDirectoryStatus = 3;

}  // namespace pdx
