// pdx unpack IN... [-C DIR]: see ARCHIVES in man/pdx.1.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "archive/manifest.h"
#include "archive/names.h"
#include "archive/part_name.h"
#include "archive/progress.h"
#include "archive/unpack.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"

namespace pdx {

namespace {

// The manifest at path, after checking every part against it (before anything is unpacked).
Manifest verified_manifest(const std::string& path, const std::vector<std::string>& parts) {
  auto manifest = read_manifest(path);
  if (!manifest) throw UsageError(manifest.error());
  if (std::find(parts.begin(), parts.end(), "-") != parts.end()) {
    throw UsageError("--verify cannot check standard input; name the parts");
  }
  if (auto ok = verify_parts(*manifest, parts); !ok) fail(ok);
  return *manifest;
}

void check_counts(const Manifest& manifest, const UnpackStats& stats) {
  if (stats.files != manifest.files || stats.file_bytes != manifest.bytes) {
    throw UsageError("unpacked " + std::to_string(stats.files) + " files of " +
                     std::to_string(stats.file_bytes) + " bytes; the manifest says " +
                     std::to_string(manifest.files) + " files of " +
                     std::to_string(manifest.bytes) + " bytes");
  }
}

}  // namespace

int cmd_unpack(int argc, char** argv) {
  std::vector<std::string> inputs;
  UnpackOptions options;
  std::string manifest_path;
  bool verbose = false;
  CLI::App app{"Unpack an archive, or its parts read in order as one stream.", "pdx unpack"};
  app.add_option("inputs", inputs,
                 "The archive, its parts in order, or the parts' common prefix ('-' reads stdin)")
      ->required();
  app.add_option("-C,--directory", options.directory, "Unpack into DIR (created if missing)");
  app.add_option("--strip-components", options.strip_components,
                 "Drop N leading components from names")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--verify", manifest_path,
                 "Check the parts against MANIFEST (pack --manifest) first, and the counts after");
  app.add_flag("-v,--verbose", verbose, "List entries as they are unpacked");
  bool no_same_owner = false;
  app.add_flag("--no-same-owner", no_same_owner,
               "Files belong to the user, root too: no owners, set-id bits or device files "
               "from the archive (as GNU tar)");
  if (auto status = parse_cli(app, argc, argv)) return *status;

  if (no_same_owner) options.ownership = Ownership::mine;
  use_utf8_names();
  auto parts = resolve_parts(inputs);
  if (!parts) throw UsageError(parts.error());
  options.parts = *parts;
  std::optional<Manifest> manifest;
  if (!manifest_path.empty()) {
    manifest = verified_manifest(manifest_path, options.parts);
    options.set_check = SetCheck::sizes;  // their SHA-256s were just checked
  }
  if (verbose)
    options.on_entry = [](const std::string& name) { std::printf("%s\n", name.c_str()); };
  options.on_warning = [](const std::string& message) {
    std::fprintf(stderr, "pdx: warning: %s\n", message.c_str());
  };
  Progress progress;
  options.on_progress = [&progress](std::uint64_t done, std::uint64_t total) {
    progress.update(done, total, std::nullopt);
  };

  auto stats = unpack(options);
  if (!stats) fail(stats);
  if (manifest) check_counts(*manifest, *stats);
  return kExitOk;
}

}  // namespace pdx
