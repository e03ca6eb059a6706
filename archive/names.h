#pragma once
// File names in archives: pax and zip headers hold UTF-8, which libarchive converts from and to
// the locale's character set -- and fails to under the C locale, the usual one of a batch job.

namespace pdx {

/// Sets LC_CTYPE from the environment and, when that is not a UTF-8 locale, to C.UTF-8, so that
/// names that are UTF-8 on disk (nearly all on Linux) are stored and restored as they are.
/// Process-wide; for a command's start.
void use_utf8_names();

}  // namespace pdx
