// pdx split FILE --size SIZE: see ARCHIVES in man/pdx.1.
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "archive/join.h"
#include "archive/open_output.h"
#include "archive/part_name.h"
#include "archive/size.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"

namespace pdx {

int cmd_split(int argc, char** argv) {
  std::string file;
  std::string size_text;
  std::string prefix;
  std::optional<int> suffix_length;
  bool force = false;
  CLI::App app{"Split an existing file into parts FILE.part-N.", "pdx split"};
  app.add_option("file", file, "The file to split")->required();
  app.add_option("-b,--size", size_text, "Bytes per part (512K, 2000M, 1G)")->required();
  app.add_option("-o,--output", prefix, "Name parts PREFIX.part-N (default: FILE)");
  app.add_option("-a,--suffix-length", suffix_length,
                 "Digits in part suffixes (default: as many as needed)");
  app.add_flag("-d,--numeric-suffixes")
      ->description("Accepted for split(1) habits; suffixes are always numeric");
  app.add_flag("-f,--force", force, "Replace existing parts");
  if (auto status = parse_cli(app, argc, argv)) return *status;

  auto part_size = parse_size(size_text);
  if (!part_size) throw UsageError(part_size.error());
  std::error_code ec;
  auto bytes = std::filesystem::file_size(file, ec);
  if (ec) throw UsageError(file + ": " + ec.message());
  auto width = choose_suffix_width(suffix_length, bytes, StreamSize::exact, *part_size);
  if (!width) throw UsageError(width.error());
  auto sink = open_output(
      {prefix.empty() ? file : prefix, *part_size, *width, force ? Overwrite::yes : Overwrite::no});
  if (!sink) throw FatalError(sink.error());
  if (auto copied = join_parts({file}, **sink); !copied) throw FatalError(copied.error());
  return kExitOk;
}

}  // namespace pdx
