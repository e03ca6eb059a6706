// pdx join PARTS... -o FILE: see ARCHIVES in man/pdx.1.
#include <string>
#include <vector>

#include "archive/join.h"
#include "archive/open_output.h"
#include "archive/part_name.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"

namespace pdx {

int cmd_join(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string output;
  bool force = false;
  CLI::App app{"Join parts, in order, into one file (cat with checks).", "pdx join"};
  app.add_option("parts", inputs, "The parts in order, or their common prefix")->required();
  app.add_option("-o,--output", output, "File to write; - writes to stdout")->required();
  app.add_flag("-f,--force", force, "Replace an existing FILE");
  if (auto status = parse_cli(app, argc, argv)) return *status;

  auto parts = resolve_parts(inputs);
  if (!parts) throw UsageError(parts.error());
  auto sink = open_output({output, std::nullopt, 1, force ? Overwrite::yes : Overwrite::no});
  if (!sink) throw FatalError(sink.error());
  if (auto joined = join_parts(*parts, **sink); !joined) fail(joined);
  return kExitOk;
}

}  // namespace pdx
