#pragma once
// What ties a part of a split tar.zst or tar.gz archive to its set: an element at the start of
// every part that the standard decoders skip -- an empty zstd frame and a skippable frame, or an
// empty gzip member whose FEXTRA field carries it -- holding the pack's random 128-bit id, the
// part's index, its length and whether it is the last part. `cat OUT.part-* | zstd -d` (or gzip -d,
// GNU tar) decodes the parts as before; pdx reads these elements to refuse a foreign, missing or
// misordered part by name before it unpacks anything (archive/part_reader.h).
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace pdx {

/// How parts are framed: none (bytes cut at the part size, as split(1)), or with an element of
/// this codec at the start of each part, the compressed stream ending its frame or member at
/// each part's end.
enum class PartFraming { none, zstd, gzip };

using PackId = std::array<unsigned char, 16>;

struct PartHeader {
  PackId pack_id{};
  std::uint64_t index = 0;
  std::uint64_t length = 0;  // bytes of the whole part, this element included
  bool last = false;
};

/// The most bytes an element takes; read this many from a part's start to decode one.
constexpr std::size_t kPartHeaderMax = 68;

/// A fresh random id (getrandom).
PackId random_pack_id();
/// The element that starts a part; always the same size for a framing.
std::string encode_part_header(PartFraming framing, const PartHeader& header);
/// The element `head` starts with, if it is one (of either framing).
std::optional<PartHeader> decode_part_header(std::span<const char> head);
/// The first 8 hex digits of an id, for messages.
std::string short_id(const PackId& id);
/// All 32 hex digits of an id.
std::string hex_id(const PackId& id);

}  // namespace pdx
