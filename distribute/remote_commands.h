#pragma once
// The commands pull, verify and push (on hosts where `pdx agent` cannot run) run on the hosts
// through their POSIX tools (sh, GNU tar, find, xargs, mv, sha256sum): every path in them quoted
// by base/quote.h, none able to pass for an option.
#include <cstdint>
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

/// In REMOTE_DIR: "s SIZE NAME\0" for every regular file and "l NAME\0TARGET\0" for every
/// symlink (find -printf, symlinks not followed), then with `hash` "SHA256  ./NAME\0" for each
/// (sha256sum -z, as many at once as the host has cores, each batch's records kept whole in a file
/// of a temporary directory until all are done). Exit 3 when REMOTE_DIR is not a directory one can
/// enter.
std::string verify_command(const std::string& remote_dir, bool hash);
inline constexpr int kNoDirectoryStatus = 3;

/// What a push through the host's sh and tar finds at DEST, with its find: NUL-ended records
/// "TYPE MODE SIZE MTIME NAME" (find -printf's %y %m %s %T@; symlinks not followed), first DEST
/// itself (NAME empty; for a DEST/ that is no directory, what DEST is without the slash;
/// "n 0 0 0 " when missing), then, when DEST is a directory, every entry of each TOP under it
/// (as `pdx agent --list --under=TOP` lists them; "." for all of DEST), NAME as "./TOP/...". Exit
/// kNoListing when the host's find has no -printf (not GNU find).
std::string posix_list_command(const std::string& dest, const std::vector<std::string>& tops);
inline constexpr int kNoListing = 4;

/// Where a push through the host's sh and tar puts what its tar stream holds under "d/".
struct PosixLanding {
  enum class Kind {
    into,        // the tree's entries into DEST, made if missing
    into_or_as,  // one file, named `name` in the stream: DEST/NAME when DEST is a directory on the
                 // host, else DEST itself
    extract,     // an archive's entries into DEST (the stream is the archive itself, `size`
                 // bytes)
  } kind = Kind::into;
  std::string name;          // into_or_as
  std::string decompressor;  // extract: "gzip", "bzip2", "xz", "zstd", or "" for plain tar
  std::uint64_t size = 0;    // extract: the archive's bytes, all of the stream
  std::string set{};         // extract: the set's identity (extract_set_id), "" for none
};

/// The last entry of a push's tar stream of files, outside "d/": the host's sh places nothing
/// of a stream without it (cut short).
inline constexpr const char* kPosixStreamEnd = "end";

/// Reads a tar stream on stdin into a hidden temporary directory DIR/.push.pdx-HOST-PID (DIR: DEST,
/// or DEST's parent for a file written as DEST), then moves each entry into place with mv: a
/// directory missing under DEST as a whole, a file by a rename, so that nothing appears under
/// its final name incomplete; a symlink in DEST's tree is never written through. The
/// temporary directory goes when the command ends, and those of dead earlier runs (SIGKILL)
/// with the next one. Prints NUL-ended records: "f", PATH, REASON for each entry that could
/// not be placed, then "c FILES BYTES" (what the stream held) once all is done. A whole-host
/// failure (DEST cannot be made, tar failed, the decompressor is missing) exits non-zero with
/// one line on stderr (for a full disk: the file, and "No space left on device"). Outside "d/",
/// the stream may hold "skip": NUL-ended names under "d/" not to place (files that could not be
/// read whole here), "modes": MODE, STAMP and NAME, NUL-ended, deepest first, for each directory
/// under DEST to take once all is placed (a new one or one that was there: its mode, and the
/// mtime of the file STAMP in the stream, as `touch -r` copies it; "d/" holds them writable),
/// and must end with kPosixStreamEnd. An archive has no room for a marker: the host counts the
/// bytes it receives (tee, through a FIFO in the temporary directory, into tar) and places
/// nothing unless they are landing.size; a stream cut short, whatever the host's tar made of it,
/// exits 1 with "the stream from pdx was cut short; nothing was placed".
///
/// An archive with landing.set: once every entry is placed, a record of the set and a
/// fingerprint of DEST's tree (type, mode, size, mtime, ctime, inode and name of every entry;
/// GNU find's) goes to ~/.cache/pdx/extracted/posix-KEY (KEY: a hash of DEST's physical path); it
/// is removed before anything is unpacked. No record where find is not GNU's.
std::string posix_push_command(const std::string& dest, const PosixLanding& landing);

/// Prints "extracted" when the host holds `set` unpacked at DEST as posix_push_command recorded
/// it, and DEST's tree is still what it was then (anything changed, added or removed: not);
/// prints nothing otherwise. Always exits 0.
std::string posix_extracted_command(const std::string& dest, const std::string& set);

}  // namespace pdx
