#pragma once
// `pdx push --extract -m MANIFEST`: what each host unpacked against what the archive holds, as
// `pdx pack -m` wrote it (archive/manifest.h).
#include "archive/manifest.h"
#include "distribute/push/push_report.h"

namespace pdx {

/// Fails each host that completed the push but whose agent counted other files or bytes than
/// the manifest's: its error is "unpacked N files, B bytes; the manifest says M files, C bytes".
/// Hosts that failed already, or were up to date, are left as they are.
void check_manifest(const Manifest& manifest, PushReport& report);

}  // namespace pdx
