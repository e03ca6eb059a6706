#pragma once
// Decimal numbers with the zero padding of a host range (node[008-010]), shared by the
// expander and the folder so both write numbers and ranges the same way.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pdx {

/// Appends `value` in decimal, left-padded with zeros to `width` digits.
inline void append_number(std::string& out, std::uint64_t value, std::size_t width) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  auto n = static_cast<std::size_t>(end - digits);
  if (n < width) out.append(width - n, '0');
  out.append(digits, n);
}

/// Appends one item of a bracket: "lo" when lo == hi, else "lo-hi", or "lo-hi/step" when step is
/// not 1; every number padded to `width` digits (node[1-9/2], node[08-12]).
inline void append_range(std::string& out, std::uint64_t lo, std::uint64_t hi, std::uint64_t step,
                         std::size_t width) {
  append_number(out, lo, width);
  if (hi == lo) return;
  out += '-';
  append_number(out, hi, width);
  if (step == 1) return;
  out += '/';
  append_number(out, step, 0);
}

}  // namespace pdx
