#pragma once
// `push --extract`: the identity of the set of parts pushed, which the hosts' agents record after
// a clean unpack (agent/extract_record.h) and which pdx asks them about when listing DEST, so
// that a host already holding the set unpacked is up to date.
#include <optional>
#include <string>
#include <vector>

#include "archive/manifest.h"
#include "archive/part_reader.h"

namespace pdx {

/// The set's identity: "pack-ID-SIZE" for a set whose pack id `checked.check()` vouched for (the
/// id a framed set's parts carry, or the one in the set file of parts whose contents it checked:
/// archive/set_file.h), else "sha256-..." of the -m manifest's part sizes and hashes
/// (checked against the parts already), else "xxh3-..." of the parts' XXH3-128s (each
/// part read once more, on all cores). "" when a part is not a regular file (standard input) or
/// cannot be read whole (the push names it): no identity, the set is always sent. With -m, the
/// manifest's file and byte counts are part of it.
std::string extract_set_id(const std::vector<std::string>& parts, const PartReader& checked,
                           const std::optional<Manifest>& manifest);

}  // namespace pdx
