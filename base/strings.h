#pragma once
// String helpers every layer uses: one trim, one split on blanks, one into lines, one join.
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

/// The lines of `s` without their '\n', as getline() reads them: a last line without one is a
/// line, the end after a final '\n' is not. Views into `s`.
std::vector<std::string_view> split_lines(std::string_view s);

/// `parts` joined with `separator` between them.
std::string join(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace pdx
