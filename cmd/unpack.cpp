// pdx unpack IN... [-C DIR]: see ARCHIVES in man/pdx.1.
#include <cstdio>
#include <string>
#include <vector>

#include "archive/names.h"
#include "archive/part_name.h"
#include "archive/progress.h"
#include "archive/unpack.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_unpack(int argc, char** argv) {
  std::vector<std::string> inputs;
  UnpackOptions options;
  bool verbose = false;
  CLI::App app{"Unpack an archive, or its parts read in order as one stream.", "pdx unpack"};
  app.add_option("inputs", inputs,
                 "The archive, its parts in order, or the parts' common prefix ('-' reads stdin)")
      ->required();
  app.add_option("-C,--directory", options.directory, "Unpack into DIR (created if missing)");
  app.add_option("--strip-components", options.strip_components,
                 "Drop N leading components from names")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("-v,--verbose", verbose, "List entries as they are unpacked");
  if (auto status = parse_cli(app, argc, argv)) return *status;

  use_utf8_names();
  auto parts = resolve_parts(inputs);
  if (!parts) throw UsageError(parts.error());
  options.parts = *parts;
  if (verbose)
    options.on_entry = [](const std::string& name) { std::printf("%s\n", name.c_str()); };
  options.on_warning = [](const std::string& message) {
    std::fprintf(stderr, "pdx: warning: %s\n", message.c_str());
  };
  Progress progress(0);
  options.on_progress = [&progress](std::uint64_t done, std::uint64_t) {
    progress.update(done, done);
  };

  auto stats = unpack(options);
  if (!stats) throw FatalError(stats.error());
  return kExitOk;
}

}  // namespace pdx
