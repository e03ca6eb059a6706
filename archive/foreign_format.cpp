#include "archive/foreign_format.h"

#include <array>
#include <cstring>

namespace pdx {

namespace {

struct Magic {
  std::size_t offset;
  std::string_view bytes;
  std::string_view name;
};

using namespace std::string_view_literals;

// From file(1)'s magic and the formats' own specifications. ISO 9660 and UDF volume
// descriptors may start at any of the first three 2 KiB sectors after the 32 KiB system area.
constexpr std::array<Magic, 20> kMagics = {{
    {0, "LZIP"sv, "lzip compressed data"},
    {0, "\x04\x22\x4d\x18"sv, "lz4 compressed data"},
    {0, "\x02\x21\x4c\x18"sv, "lz4 (legacy) compressed data"},
    {0, "\x89LZO\x00\r\n\x1a\n"sv, "lzop compressed data"},
    {0, "\x1f\x9d"sv, "compress (.Z) data"},
    {0, "LRZI"sv, "lrzip compressed data"},
    {0, "7z\xbc\xaf\x27\x1c"sv, "a 7z archive"},
    {0, "Rar!\x1a\x07"sv, "a RAR archive"},
    {0, "MSCF\0\0\0\0"sv, "a Microsoft cabinet"},
    {0, "!<arch>\n"sv, "an ar archive"},
    {0, "xar!"sv, "a xar archive"},
    {0, "\xed\xab\xee\xdb"sv, "an RPM package"},
    {0, "hsqs"sv, "a squashfs image"},
    {0, "MSWIM\0\0\0"sv, "a WIM image"},
    {32769, "CD001"sv, "ISO 9660"},
    {34817, "CD001"sv, "ISO 9660"},
    {36865, "CD001"sv, "ISO 9660"},
    {32769, "BEA01"sv, "UDF"},
    {34817, "BEA01"sv, "UDF"},
    {36865, "BEA01"sv, "UDF"},
}};

// A tar header block: its checksum (the bytes summed with the checksum field as spaces)
// matches. Whatever a tar's first file holds, its name comes first, so a name that happens to
// start with a magic does not make a tar foreign.
bool tar_header(std::span<const char> head) {
  if (head.size() < 512) return false;
  unsigned stored = 0;
  bool digits = false;
  std::size_t i = 148;
  while (i < 156 && head[i] == ' ') ++i;  // some writers right-align it
  for (; i < 156 && head[i] != '\0' && head[i] != ' '; ++i) {
    if (head[i] < '0' || head[i] > '7') return false;
    stored = stored * 8 + static_cast<unsigned>(head[i] - '0');
    digits = true;
  }
  unsigned sum = 0;
  for (std::size_t at = 0; at < 512; ++at) {
    sum += at >= 148 && at < 156 ? ' ' : static_cast<unsigned char>(head[at]);
  }
  return digits && sum == stored;
}

}  // namespace

std::optional<std::string_view> foreign_format(std::span<const char> head) {
  if (tar_header(head)) return std::nullopt;
  for (const auto& magic : kMagics) {
    if (head.size() >= magic.offset + magic.bytes.size() &&
        std::memcmp(head.data() + magic.offset, magic.bytes.data(), magic.bytes.size()) == 0) {
      return magic.name;
    }
  }
  return std::nullopt;
}

}  // namespace pdx
