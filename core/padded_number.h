#pragma once
// Decimal numbers with the zero padding of a host range (node[008-010]), shared by the
// expander and the folder so both write numbers the same way.
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

}  // namespace pdx
