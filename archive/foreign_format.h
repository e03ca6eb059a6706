#pragma once
// Formats pdx does not read, told by their magic bytes, so that unpack refuses them by name
// instead of half-reading them: an ISO 9660 image starts with 32 KiB of zeros, which a tar
// reader takes for an empty archive, and libarchive would hand lzip, lz4 or lzop data to
// programs that may not be there.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace pdx {

/// The bytes foreign_format() needs to see (fewer only when the stream is shorter).
constexpr std::size_t kForeignFormatHead = 36870;

/// What the first bytes of a stream look like ("ISO 9660", "lzip compressed data", "7z"...),
/// when that is something other than tar, cpio, zip or the gzip, bzip2, xz and zstd
/// compressions; nullopt for those, and for what has no magic pdx knows.
std::optional<std::string_view> foreign_format(std::span<const char> head);

}  // namespace pdx
