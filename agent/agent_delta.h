#pragma once
// The sides of `pdx sync` in `pdx agent` (agent/delta_protocol.h):
//   --signatures=DEST  how each file named on stdin stands on this host, and the block
//                      signatures of those that changed, computed on all cores
//   --patch=DEST       changed files rebuilt from their old blocks and the literals sent
//   --delete=DEST      the names on stdin removed (--delete: what the sources do not have)
// Every name is opened below DEST without following a symlink (openat2 RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS); "" is DEST itself.
#include <string>

#include "agent/agent_protocol.h"
#include "base/result.h"

namespace pdx {

/// Reads SignatureRequests from `in` until `done`; for each writes its SignatureReply (and the
/// blocks) to `out`, then a Summary (files: signatures sent, bytes: bytes read for them). Nothing
/// past `done` is read. An Error: a malformed request, the input ending early, `out` not
/// writable.
Result<void> agent_signatures(const std::string& dest, int in, int out, unsigned threads);

/// Reads deltas from `in` until `done`. Each file is rebuilt out of sight in its directory
/// (archive/unpack_file.h) from the old file's blocks and the literals, its size and XXH3-128
/// checked at delta_end, then given its mode, mtime and final name: a Written reply. A file
/// that fails (the old file changed since its signature, a full disk, a checksum that differs)
/// is a Failed reply naming DEST/NAME, and the rest goes on. After `done`, a Summary, returned.
/// An Error for the stream itself (a malformed frame or op, the input ending before `done`):
/// the file being written is dropped, nothing is left under its name. ReadAhead::no: nothing past
/// `done` is read (an agent's next step follows on `in`).
Result<Summary> agent_patch(const std::string& dest, int in, int out,
                            FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes);
/// The same from `in`'s bytes (a relayed host's: agent/agent_relay.h).
Result<Summary> agent_patch(const std::string& dest, FrameInput& in, int out,
                            FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes);

/// Reads Entry frames from `in` until `done`, each a name under DEST as the host's listing had
/// it, children before their directory: removes each, a directory only when empty (unlinkat),
/// the entry itself and never what a symlink points at. A name already gone is no failure; one
/// that cannot be removed (DEST itself, a symlink on the way, a directory no longer empty) is a
/// Failed reply naming DEST/NAME, and the rest goes on. After `done`, a Summary (files: names
/// removed), returned. An Error for the stream (a malformed frame, an unsafe name: '..', an
/// absolute one), with nothing more removed. ReadAhead::no: nothing past `done` is read.
Result<Summary> agent_delete(const std::string& dest, int in, int out,
                             FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes);

}  // namespace pdx
