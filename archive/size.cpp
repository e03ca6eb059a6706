#include "archive/size.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

namespace pdx {

namespace {

constexpr std::string_view kUnitLetters = "KMGTPE";

// The multiplier a unit stands for, or 0 when the unit is not one split(1) knows.
std::uint64_t unit_multiplier(std::string_view unit) {
  if (unit.empty()) return 1;
  auto pos =
      kUnitLetters.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
  if (pos == std::string_view::npos) return 0;
  std::string_view rest = unit.substr(1);
  std::uint64_t base;
  if (rest.empty() || rest == "iB") {
    base = 1024;
  } else if (rest == "B") {
    base = 1000;
  } else {
    return 0;
  }
  std::uint64_t m = 1;
  for (std::size_t i = 0; i <= pos; ++i) m *= base;
  return m;
}

}  // namespace

Result<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) {
    return Error{"invalid size '" + std::string(text) +
                 "': expected a number with an optional unit like 512K, 2000M or 1G"};
  }
  std::uint64_t multiplier = unit_multiplier(text.substr(end - text.data()));
  if (multiplier == 0) {
    return Error{"invalid size '" + std::string(text) +
                 "': unknown unit (use K, M, G, T, P, E, KiB, ... or KB, MB, ...)"};
  }
  if (number == 0) return Error{"invalid size '" + std::string(text) + "': must be more than 0"};
  if (number > std::numeric_limits<std::uint64_t>::max() / multiplier) {
    return Error{"invalid size '" + std::string(text) + "': too large"};
  }
  return number * multiplier;
}

std::string human_size(std::uint64_t bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"B",   "KiB", "MiB", "GiB",
                                                        "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
  return buf;
}

}  // namespace pdx
