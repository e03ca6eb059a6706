#include "archive/set_file.h"

#include <charconv>
#include <optional>
#include <string_view>

#include "base/read_file.h"
#include "base/strings.h"

namespace pdx {

namespace {

constexpr std::string_view kMagic = "pdx-set 1";
constexpr std::size_t kSetFileMax = 16 << 20;
constexpr std::size_t kHexDigits = 32;

bool is_hex(std::string_view text) {
  return text.size() == kHexDigits && text.find_first_not_of("0123456789abcdef") == text.npos;
}

std::optional<PackId> parse_id(std::string_view text) {
  if (!is_hex(text)) return std::nullopt;
  PackId id{};
  for (std::size_t i = 0; i < id.size(); ++i) {
    std::from_chars(text.data() + 2 * i, text.data() + 2 * i + 2, id[i], 16);
  }
  return id;
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A part's file name as a set file may hold it: one name, no directory.
bool is_file_name(std::string_view name) {
  return !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
         name.find('/') == name.npos;
}

// "part SIZE XXH3 NAME" (NAME is the rest of the line, spaces included).
std::optional<SetFile::Part> parse_part(std::string_view line) {
  constexpr std::string_view kKey = "part ";
  if (!line.starts_with(kKey)) return std::nullopt;
  line.remove_prefix(kKey.size());
  std::size_t space = line.find(' ');
  if (space == line.npos) return std::nullopt;
  auto size = parse_count(line.substr(0, space));
  line.remove_prefix(space + 1);
  if (!size || line.size() < kHexDigits + 1 || line[kHexDigits] != ' ') return std::nullopt;
  std::string_view hash = line.substr(0, kHexDigits);
  std::string_view name = line.substr(kHexDigits + 1);
  if (!is_hex(hash) || !is_file_name(name)) return std::nullopt;
  return SetFile::Part{std::string(name), *size, std::string(hash)};
}

}  // namespace

std::string encode_set_file(const SetFile& set) {
  std::string out = std::string(kMagic) + "\nid " + hex_id(set.id) + "\n";
  for (const auto& part : set.parts) {
    out += "part " + std::to_string(part.size) + " " + part.xxh3 + " " + part.name + "\n";
  }
  return out + "end " + std::to_string(set.parts.size()) + "\n";
}

Result<SetFile> read_set_file(const std::string& path) {
  auto text = read_text_file(path, IfMissing::error, kSetFileMax);
  if (!text)
    return Error{path + ": cannot read the set file: " + text.error(), ErrorKind::bad_input};
  auto malformed = [&path](std::size_t line, const std::string& why) {
    return Error{path + ":" + std::to_string(line) + ": " + why +
                     ": the set file beside the parts is damaged; remove it to read them unchecked",
                 ErrorKind::bad_input};
  };
  std::vector<std::string_view> lines = split_lines(*text);
  if (lines.empty() || lines[0] != kMagic) {
    return Error{path + ": not a pdx set file (its first line is not '" + std::string(kMagic) +
                     "'): remove it, or move it away from the parts",
                 ErrorKind::bad_input};
  }
  SetFile set;
  std::optional<PackId> id;
  if (lines.size() > 1 && lines[1].starts_with("id ")) id = parse_id(lines[1].substr(3));
  if (!id) return malformed(2, "no pack id");
  set.id = *id;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    if (lines[i].starts_with("end ")) {
      auto count = parse_count(lines[i].substr(4));
      if (!count || *count != set.parts.size()) return malformed(i + 1, "the part count differs");
      if (i + 1 != lines.size()) return malformed(i + 2, "a line after the end");
      if (set.parts.empty()) return malformed(i + 1, "no parts");
      return set;
    }
    auto part = parse_part(lines[i]);
    if (!part) return malformed(i + 1, "not a line 'part SIZE XXH3-128 NAME'");
    set.parts.push_back(std::move(*part));
  }
  return malformed(lines.size() + 1, "cut short (no 'end' line)");
}

}  // namespace pdx
