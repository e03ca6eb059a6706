// pdx pack SRC... -o OUT: see ARCHIVES in man/pdx.1.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "archive/byte_sink.h"
#include "archive/format.h"
#include "archive/manifest.h"
#include "archive/names.h"
#include "archive/open_output.h"
#include "archive/pack.h"
#include "archive/part_name.h"
#include "archive/progress.h"
#include "archive/size.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"

namespace pdx {

namespace {

struct PackArgs {
  std::vector<std::string> sources;
  std::string output;
  std::string format;
  std::optional<int> level;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string split;
  std::optional<int> suffix_length;
  std::string manifest;
  bool force = false;
  bool verbose = false;
};

template <class T>
T usage_checked(Result<T> result) {
  if (!result) throw UsageError(result.error());
  return std::move(*result);
}

Format output_format(const PackArgs& args) {
  if (!args.format.empty()) return usage_checked(parse_format(args.format));
  if (auto format = infer_format(args.output)) return *format;
  throw UsageError("cannot tell the format from the name '" + args.output +
                   "'; pass --format tar|tar.gz|tar.bz2|tar.xz|tar.zst|zip");
}

// What begins each part of a split archive: a header the format's decoders skip, where the
// format has such an element (archive/part_header.h).
PartFraming part_framing(Format format) {
  if (format == Format::tar_zst) return PartFraming::zstd;
  if (format == Format::tar_gz) return PartFraming::gzip;
  return PartFraming::none;
}

OutputSpec output_spec(const PackArgs& args, Format format, const SourceSize& size) {
  OutputSpec spec{args.output,
                  std::nullopt,
                  1,
                  args.force ? Overwrite::yes : Overwrite::no,
                  args.manifest.empty() ? Checksum::none : Checksum::sha256,
                  part_framing(format)};
  if (!args.split.empty()) {
    spec.part_size = usage_checked(parse_size(args.split));
    // A framed part ends where a compressed frame does, a little short of SIZE: count parts
    // of 7/8 SIZE for the width.
    std::uint64_t filled = spec.framing == PartFraming::none
                               ? *spec.part_size
                               : std::max<std::uint64_t>(1, *spec.part_size / 8 * 7);
    spec.suffix_width = usage_checked(
        choose_suffix_width(args.suffix_length, size.archive_bound(), StreamSize::at_most, filled));
  }
  return spec;
}

void check_manifest_path(const PackArgs& args) {
  if (args.manifest.empty()) return;
  if (args.output == "-") throw UsageError("--manifest needs an archive file, not standard output");
  std::error_code ec;
  if (!args.force && std::filesystem::exists(args.manifest, ec)) {
    throw UsageError(args.manifest + ": already exists; remove it or pass --force to replace it");
  }
}

void write_pack_manifest(const PackArgs& args, Format format, const PackStats& stats,
                         const ByteSink& sink) {
  Manifest manifest{std::string(format_name(format)), stats.files, stats.file_bytes, {}};
  for (const auto& file : sink.files()) {
    manifest.parts.push_back(
        {std::filesystem::path(file.name).filename().string(), file.size, file.sha256});
  }
  if (auto ok = write_manifest(args.manifest, manifest); !ok) throw FatalError(ok.error());
}

void print_line(FILE* to, const std::string& line) {
  std::fprintf(to, "%s\n", line.c_str());
}

}  // namespace

int cmd_pack(int argc, char** argv) {
  PackArgs args;
  CLI::App app{"Pack files and directories into one archive, optionally in parts.", "pdx pack"};
  app.add_option("sources", args.sources, "Files and directories to pack")->required();
  app.add_option("-o,--output", args.output, "Archive to write; - writes to stdout")->required();
  app.add_option("--format", args.format,
                 "tar, tar.gz, tar.bz2, tar.xz, tar.zst or zip (default: from OUT's name)");
  app.add_option("-l,--level", args.level, "Compression level (the compressor's own scale)");
  app.add_option("-j,--threads", args.threads,
                 "Compression threads for gzip, bzip2, zstd and xz (default: all cores)")
      ->check(CLI::Range(1, 256));
  app.add_option("--split", args.split, "Write parts OUT.part-N of SIZE bytes (512K, 2000M, 1G)");
  app.add_option("-a,--suffix-length", args.suffix_length,
                 "Digits in part suffixes (default: enough for the input)");
  app.add_flag("-d,--numeric-suffixes")
      ->description("Accepted for split(1) habits; suffixes are always numeric");
  app.add_option("-m,--manifest", args.manifest,
                 "Also write FILE: file count, bytes, each part's size and SHA-256");
  app.add_flag("-f,--force", args.force, "Replace an existing OUT, its parts or the manifest");
  app.add_flag("-v,--verbose", args.verbose, "List entries as they are packed");
  if (auto status = parse_cli(app, argc, argv)) return *status;

  use_utf8_names();
  PackOptions options;
  options.sources = args.sources;
  options.output = args.output;
  options.format = output_format(args);
  options.level = args.level;
  options.threads = args.threads;
  check_manifest_path(args);
  SourceSize size = usage_checked(measure_sources(args.sources));
  auto sink = open_output(output_spec(args, options.format, size));
  if (!sink) throw FatalError(sink.error());

  FILE* listing = args.output == "-" ? stderr : stdout;  // stdout may be the archive
  if (args.verbose)
    options.on_entry = [listing](const std::string& name) { print_line(listing, name); };
  options.on_warning = [](const std::string& message) {
    print_line(stderr, "pdx: warning: " + message);
  };
  Progress progress;
  options.on_progress = [&progress, &size](std::uint64_t in, std::uint64_t out) {
    progress.update(in, size.file_bytes, out);
  };

  auto stats = pack(options, **sink);
  if (!stats) throw FatalError(stats.error());
  if (!args.manifest.empty()) write_pack_manifest(args, options.format, *stats, **sink);
  if (stats->incomplete > 0) {
    print_line(stderr, "pdx: error: " + args.output + ": " + std::to_string(stats->incomplete) +
                           " file(s) changed while read or could not be stored (see warnings)");
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace pdx
