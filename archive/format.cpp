#include "archive/format.h"

#include <array>
#include <string>

namespace pdx {

namespace {

struct FormatName {
  std::string_view name;
  Format format;
};

// Canonical names first: format_name() returns the first name listed for a format.
constexpr std::array<FormatName, 10> kNames = {{
    {"tar.gz", Format::tar_gz},
    {"tar.bz2", Format::tar_bz2},
    {"tar.xz", Format::tar_xz},
    {"tar.zst", Format::tar_zst},
    {"tar", Format::tar},
    {"zip", Format::zip},
    {"tgz", Format::tar_gz},
    {"tbz2", Format::tar_bz2},
    {"txz", Format::tar_xz},
    {"tzst", Format::tar_zst},
}};

}  // namespace

Result<Format> parse_format(std::string_view name) {
  for (const auto& entry : kNames) {
    if (entry.name == name) return entry.format;
  }
  return Error{"unknown format '" + std::string(name) +
               "': use tar, tar.gz, tar.bz2, tar.xz, tar.zst or zip"};
}

std::optional<Format> infer_format(std::string_view filename) {
  for (const auto& entry : kNames) {
    std::size_t n = entry.name.size();
    if (filename.size() > n + 1 && filename.substr(filename.size() - n) == entry.name &&
        filename[filename.size() - n - 1] == '.') {
      return entry.format;
    }
  }
  return std::nullopt;
}

std::string_view format_name(Format format) {
  for (const auto& entry : kNames) {
    if (entry.format == format) return entry.name;
  }
  return "tar";
}

}  // namespace pdx
