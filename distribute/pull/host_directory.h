#pragma once
// The directory a host's files land in under pull's LOCAL_DIR (pdx(1), pdx pull).
#include <string>
#include <string_view>

namespace pdx {

/// The host label as a directory name that is one safe path component: letters, digits and
/// "._-@+" stay as they are, every other byte is written %XX (upper-case hex), '%' included, and
/// so is a leading '.'. So "node01" and "root@node01" stay readable, "[::1]:2222" becomes
/// "%5B%3A%3A1%5D%3A2222", and two labels never share a directory.
std::string host_directory(std::string_view label);

}  // namespace pdx
