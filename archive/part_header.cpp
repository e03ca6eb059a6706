#include "archive/part_header.h"

#include <sys/random.h>

#include <cstring>

namespace pdx {

namespace {

// The payload both framings carry.
constexpr char kTag[8] = {'p', 'd', 'x', '-', 'p', 'a', 'r', 't'};
constexpr unsigned char kVersion = 1;
constexpr std::size_t kPayload = sizeof kTag + 2 + 16 + 8 + 8;
constexpr unsigned char kFlagLast = 1;

// zstd: an empty frame (so that the part begins with zstd's magic, which is what GNU tar and
// file(1) look for), then a skippable frame (magic 0x184D2A50..5F, little-endian 32-bit size,
// the payload).
constexpr char kEmptyZstdFrame[9] = {'\x28', '\xb5', '\x2f', '\xfd', '\x20', 0, 1, 0, 0};
constexpr std::uint32_t kSkippableMagic = 0x184D2A5D;
// gzip: an empty member with FEXTRA holding one subfield 'P' 'x'.
constexpr unsigned char kSubfield[2] = {'P', 'x'};

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_le(const unsigned char* p, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return value;
}

std::string payload(const PartHeader& header) {
  std::string out(kTag, sizeof kTag);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(header.last ? kFlagLast : 0));
  out.append(reinterpret_cast<const char*>(header.pack_id.data()), header.pack_id.size());
  put_le(out, header.index, 8);
  put_le(out, header.length, 8);
  return out;
}

std::optional<PartHeader> decode_payload(const unsigned char* p, std::size_t size) {
  if (size != kPayload || std::memcmp(p, kTag, sizeof kTag) != 0 || p[8] != kVersion) {
    return std::nullopt;
  }
  PartHeader header;
  header.last = (p[9] & kFlagLast) != 0;
  std::memcpy(header.pack_id.data(), p + 10, 16);
  header.index = get_le(p + 26, 8);
  header.length = get_le(p + 34, 8);
  return header;
}

}  // namespace

PackId random_pack_id() {
  PackId id{};
  std::size_t got = 0;
  while (got < id.size()) {
    ssize_t n = ::getrandom(id.data() + got, id.size() - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  return id;
}

std::string encode_part_header(PartFraming framing, const PartHeader& header) {
  std::string data = payload(header);
  std::string out;
  if (framing == PartFraming::zstd) {
    out.assign(kEmptyZstdFrame, sizeof kEmptyZstdFrame);
    put_le(out, kSkippableMagic, 4);
    put_le(out, data.size(), 4);
    return out + data;
  }
  // ID1 ID2 CM=deflate FLG=FEXTRA MTIME=0 XFL=0 OS=unknown, XLEN, the subfield, then an empty
  // final fixed-Huffman block, CRC-32 0 and ISIZE 0: gzip -d decodes it to nothing.
  out = {'\x1f', '\x8b', '\x08', '\x04', 0, 0, 0, 0, 0, '\xff'};
  put_le(out, 4 + data.size(), 2);
  out.append(reinterpret_cast<const char*>(kSubfield), 2);
  put_le(out, data.size(), 2);
  out += data;
  out += std::string("\x03\x00", 2);
  out.append(8, '\0');
  return out;
}

std::optional<PartHeader> decode_part_header(std::span<const char> head) {
  const auto* p = reinterpret_cast<const unsigned char*>(head.data());
  std::size_t n = head.size();
  constexpr std::size_t kEmpty = sizeof kEmptyZstdFrame;
  if (n >= kEmpty + 8 + kPayload && std::memcmp(p, kEmptyZstdFrame, kEmpty) == 0 &&
      get_le(p + kEmpty, 4) == kSkippableMagic && get_le(p + kEmpty + 4, 4) == kPayload) {
    return decode_payload(p + kEmpty + 8, kPayload);
  }
  constexpr std::size_t kGzipFixed = 10 + 2 + 4;
  if (n >= kGzipFixed + kPayload + 10 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && p[3] == 4 &&
      get_le(p + 10, 2) == 4 + kPayload && p[12] == kSubfield[0] && p[13] == kSubfield[1] &&
      get_le(p + 14, 2) == kPayload) {
    return decode_payload(p + kGzipFixed, kPayload);
  }
  return std::nullopt;
}

std::string short_id(const PackId& id) {
  return hex_id(id).substr(0, 8);
}

std::string hex_id(const PackId& id) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < id.size(); ++i) {
    out.push_back(kHex[id[i] >> 4]);
    out.push_back(kHex[id[i] & 15]);
  }
  return out;
}

}  // namespace pdx
