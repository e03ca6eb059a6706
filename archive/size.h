#pragma once
// Byte counts as people type them for split(1) and as pdx prints them.
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace pdx {

/// Parses a size the way split(1) -b does: an integer with an optional unit, K M G T P E
/// (powers of 1024; also written KiB, MiB, ...; lower case accepted) or KB MB GB TB PB EB
/// (powers of 1000). "2000M" is 2000 * 2^20 bytes. Zero, negative and overflowing sizes fail.
Result<std::uint64_t> parse_size(std::string_view text);

/// A byte count for humans: "512 B", "1.5 KiB", "2.0 GiB".
std::string human_size(std::uint64_t bytes);

}  // namespace pdx
