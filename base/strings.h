#pragma once
// String helpers every layer uses: one trim, one split on blanks, one join.
#include <string>
#include <string_view>
#include <vector>

namespace pdx {

/// The characters trim() and split_blanks() treat as blanks: " \t\r\n\v\f".
inline constexpr std::string_view kBlanks = " \t\r\n\v\f";

/// `s` without leading and trailing blanks.
std::string_view trim(std::string_view s);

/// The blank-separated words of `s` (no empty words); views into `s`.
std::vector<std::string_view> split_blanks(std::string_view s);

/// `parts` joined with `separator` between them.
std::string join(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace pdx
