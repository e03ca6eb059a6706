#pragma once
// What `pdx push SRC... DEST` sends to a host: the local files and directories, named as they
// land under DEST, and for each host the part of them it lacks, from its agent's listing.
//
// Where sources land (rsync's rules, which stay the same when a push is run again):
//   into  each SRC becomes DEST/basename(SRC); a directory written DIR/ puts its contents in
//         DEST. Always for a directory, or when DEST ends in '/', or for several sources.
//   as    one file SRC, and DEST not a directory on the host: the file is written as DEST.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent/agent_protocol.h"
#include "base/result.h"

namespace pdx {

struct LocalFile {
  std::string path;  // here
  std::string name;  // under DEST ("" for DEST itself)
  std::uint32_t mode = 0644;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
  std::uint64_t size = 0;
  std::string digest{};  // XXH3-128, with --checksum, when a host has a file of this size
                         // (compare_contents)
  std::uint64_t allocated = UINT64_MAX;  // st_blocks' bytes: a sparse file's data is at most
                                         // that much (what its stream carries, for progress)
  std::uint64_t wire_size() const { return std::min(size, allocated); }
};

struct LocalDir {
  std::string name;  // under DEST, parents before children
  std::uint32_t mode = 0755;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
};

struct LocalLink {
  std::string path;    // here
  std::string name;    // under DEST, never ""
  std::string target;  // verbatim, as readlink gives it
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
};

struct Layout {
  std::vector<LocalDir> dirs;
  std::vector<LocalFile> files;
  std::vector<LocalLink> links;
};

/// Which symlinks of the sources' trees are sent: all (rsync -a), or with --safe-links only those
/// whose target stays inside their SRC (not absolute, no ".." above SRC's top).
enum class Links { all, safe };

/// How a host's file is found up to date: the same size and mtime (seconds), or with --checksum
/// the same size and XXH3-128 (rsync -c: the mtime and mode of such a file are left as they are).
enum class Compare { size_and_mtime, contents };

struct PushSources {
  Compare compare = Compare::size_and_mtime;
  Layout into;
  std::optional<Layout> as;          // only for one file SRC and a DEST without a trailing '/'
  std::vector<std::string> skipped;  // sources' devices, fifos, sockets: not sent
  std::vector<std::string> skipped_names;  // their names under DEST, and those of `unsafe` and
                                           // `unread` (sync --delete keeps them)
  std::vector<std::string> unsafe;         // --safe-links: "PATH -> TARGET", not sent
  std::vector<std::string> unread;         // "PATH: REASON": subdirectories that could not be read,
                                           // not sent (nor what they hold); the push fails (exit 1)
  std::vector<std::string> tops;  // what the hosts list under DEST: each SRC's name, "." for
                                  // a DIR/'s contents (pdx agent --under)
};

/// Walks the sources (a symlink given as SRC is followed; inside a tree, none is: it is sent as a
/// symlink). An Error (ErrorKind::bad_input) names a source that cannot be read; a subdirectory
/// that cannot be read is only noted (PushSources::unread).
Result<PushSources> scan_sources(const std::vector<std::string>& sources, const std::string& dest,
                                 Links links = Links::all);

/// What is said of the sources before a push or sync: a "pdx: warning: ..." line for each thing
/// not sent (a device, a symlink --safe-links leaves out); unread ones are errors, said after.
std::string source_warnings(const PushSources& sources);

/// --safe-links: whether `target`, of a symlink `depth` directories below its SRC's top, points
/// outside it (absolute, or a ".." above the top on the way).
bool leaves_tree(std::string_view target, std::size_t depth);

/// What a host has at DEST: `pdx agent --list DEST`'s reply.
struct HostListing {
  Entry dest;                                      // name ""
  std::unordered_map<std::string, Entry> entries;  // by name under DEST
  std::string extracted;  // --set=ID: the ID when the host holds that set unpacked as recorded
};

/// Decodes a listing reply. An Error for anything but Entry frames, then at most one Extracted,
/// ending in one Summary.
Result<HostListing> parse_listing(std::string_view reply);

/// --checksum: compare by content from now on. Hashes, on all cores, each local file that some
/// host has as a hashed file of the same size at its name; the others need sending anyway.
/// Called once per wave of a push: a file hashed by an earlier call is not read again.
void compare_contents(PushSources& sources,
                      const std::vector<std::pair<std::size_t, HostListing>>& listings);

/// What one host needs: indices into the chosen layout. Hosts with equal plans share a stream.
struct HostPushPlan {
  bool into = true;
  std::vector<std::size_t> dirs, files, links;
  bool operator==(const HostPushPlan&) const = default;
  bool empty() const { return dirs.empty() && files.empty() && links.empty(); }
};

/// Who listed the host: its agent (modes, mtimes and symlinks' targets), or its find (without
/// the agent: symlinks' targets unknown).
enum class Lister { agent, find };

/// The files missing on the host or differing (Compare); the symlinks missing or pointing
/// elsewhere; the directories missing or of another mode or mtime, and those whose contents
/// this plan changes (their mtime is set again after). With Lister::find, a symlink there is
/// taken as the same.
/// An Error when DEST is a file on the host and the sources need a directory.
Result<HostPushPlan> plan_host(const PushSources& sources, const HostListing& listing,
                               const std::string& dest, Lister lister = Lister::agent);

const Layout& layout_of(const PushSources& sources, const HostPushPlan& plan);

/// What a stream frames for each entry besides its data, about: a header, the name, a mode, an
/// mtime, a size, a file's hash.
inline constexpr std::uint64_t kEntryFrameBytes = 64;
/// About how many bytes the stream of `plan` holds (its files' data, each entry's frames):
/// what decides whether it is worth a direct link (distribute/direct_link.h, direct_wanted).
std::uint64_t stream_size(const PushSources& sources, const HostPushPlan& plan);

}  // namespace pdx
