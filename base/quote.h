#pragma once
// The one function that makes a string safe to hand to a POSIX shell (ARCHITECTURE.md,
// "Security rules"). Everything pdx interpolates into a remote command line goes through it.
#include <string>
#include <string_view>

namespace pdx {

/// Quote `s` so that /bin/sh reads it back as exactly one word with exactly these bytes:
/// wrapped in single quotes, each ' written as '\''. Plain words ([A-Za-z0-9_./:=@%+,-]) are
/// returned as they are, so `export PDX_RANK=3` stays readable.
std::string shell_quote(std::string_view s);

}  // namespace pdx
