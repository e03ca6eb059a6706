#pragma once
// The little JSON pdx writes (--json): string escaping only.
#include <string>
#include <string_view>

namespace pdx {

/// `s` as a JSON string literal, quotes included. Valid UTF-8 passes through; control characters
/// are escaped; each byte that is not part of valid UTF-8 becomes U+FFFD, so the line is always
/// valid JSON even for binary output.
std::string json_string(std::string_view s);

}  // namespace pdx
