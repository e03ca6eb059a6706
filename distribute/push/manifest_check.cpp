#include "distribute/push/manifest_check.h"

#include <string>

namespace pdx {

namespace {

std::string counts(std::uint64_t files, std::uint64_t bytes) {
  return std::to_string(files) + (files == 1 ? " file, " : " files, ") + std::to_string(bytes) +
         (bytes == 1 ? " byte" : " bytes");
}

}  // namespace

void check_manifest(const Manifest& manifest, PushReport& report) {
  for (PushedHost& host : report.hosts) {
    if (host.result.failure != Failure::none || !host.error.empty() || !host.failed.empty() ||
        host.up_to_date)  // holds the set unpacked already: nothing was unpacked this time
      continue;
    // The receiving agent's summary, not a listing of DEST afterwards: the summary counts the
    // regular files this archive stream unpacked (a hard link once, as pack counted them for the
    // manifest), while a listing would count what DEST held before as well. Both are the host's
    // word; the summary is the one that measures what the manifest does.
    const Summary& got = host.written;
    if (got.files == manifest.files && got.bytes == manifest.bytes) continue;
    host.error = "unpacked " + counts(got.files, got.bytes) + "; the manifest says " +
                 counts(manifest.files, manifest.bytes);
  }
}

}  // namespace pdx
