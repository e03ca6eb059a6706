#pragma once
// `pdx agent`: pdx on a host, speaking agent/agent_protocol.h on stdin and stdout for
// `pdx push` (as `rsync --server` does for rsync). Knows nothing of hosts: it is one process on
// one machine, given a path on its command line.
#include <string>
#include <vector>

#include "agent/agent_protocol.h"
#include "base/result.h"

namespace pdx {

/// Whether a listing carries each regular file's XXH3-128 (--checksum).
enum class Hashed { no, yes };

/// `pdx agent --list=PATH [--under=NAME]... [--checksum]`: writes to `out` an Entry for PATH
/// itself (name "", kind missing when there is nothing there) and, when it is a directory, one
/// for each NAME in `under` and everything below it ("." for all of PATH; symlinks listed as
/// `other`, never followed), then a Summary. With Hashed::yes (--checksum), each regular file's
/// Entry carries its XXH3-128, hashed on all cores a batch at a time ("" for one that cannot be
/// read). With a `set` (--set, push --extract's), an `extracted` frame before the Summary when
/// PATH holds that set as an earlier receive unpacked and recorded it, unchanged since
/// (agent/extract_record.h). An Error: `out` could not be written.
Result<void> agent_list(const std::string& path, const std::vector<std::string>& under, int out,
                        Hashed hashed = Hashed::no, const std::string& set = "");

/// `pdx agent --receive DEST`: reads frames from `in` until `done`, writing what they carry
/// under DEST (made as needed):
///  - a file: created out of sight in its directory (archive/unpack_file.h), its size and
///    XXH3-128 checked at its file_end, then given its mode, mtime and final name; a Written reply.
///    Directories on the way are made, never followed through a symlink.
///  - an archive stream: unpacked as it arrives, by archive/unpack.h on a thread fed through a
///    pipe, into a hidden directory in DEST, whose entries go into place only after archive_end
///    and a clean unpack (merged into DEST's directories, never through a symlink; nothing moved
///    if any would not go); without archive_end, nothing is placed and the host fails "the
///    stream from pdx was cut short; nothing was placed". With a `set` (--set), DEST's record of
///    the set it holds is dropped when the archive starts and written again, naming `set`,
///    once it is placed whole without a failure.
/// A file that fails (a directory not writable, a full disk, a bad checksum) is left out, and
/// the rest goes on; one the sender abandons (kAbandoned) is dropped without a word. After
/// `done`, a Failed reply per reason, naming the first DEST/NAME that failed so ("DEST/NAME and
/// 3 more" when others did), then a Summary. Returns the Summary; an
/// Error for the stream itself (a malformed frame, the input ending before `done`, `out` not
/// writable): whatever file was being written is dropped, nothing is left under its name.
/// ReadAhead::no: nothing past `done` is read (an agent's next step follows on `in`).
Result<Summary> agent_receive(const std::string& dest, int in, int out, const std::string& set = "",
                              FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes);
/// The same from `in`'s bytes (a relayed host's: agent/agent_relay.h).
Result<Summary> agent_receive(const std::string& dest, FrameInput& in, int out,
                              const std::string& set = "",
                              FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes);

}  // namespace pdx
