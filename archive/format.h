#pragma once
// The archive formats pdx writes, by name and by file name. Reading detects the format from the
// content instead (archive/unpack.cpp), so any of these, however named, unpacks.
#include <optional>
#include <string_view>

#include "base/result.h"

namespace pdx {

enum class Format { tar, tar_gz, tar_bz2, tar_xz, tar_zst, zip };

/// "tar", "tar.gz", "tgz", "tar.bz2", "tbz2", "tar.xz", "txz", "tar.zst", "tzst", "zip".
Result<Format> parse_format(std::string_view name);

/// The format a file name asks for by its extension (data.tar.zst -> tar_zst), if any.
std::optional<Format> infer_format(std::string_view filename);

/// The canonical name: "tar.gz" for Format::tar_gz.
std::string_view format_name(Format format);

}  // namespace pdx
