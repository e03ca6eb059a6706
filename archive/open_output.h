#pragma once
// Opens where an archive's bytes go, as the user named it: a file, stdout ("-"), or a set of parts.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "archive/byte_sink.h"
#include "archive/part_header.h"
#include "base/result.h"

namespace pdx {

/// Where an output goes: `path` itself ("-" for stdout), or parts path.part-N of `part_size`
/// bytes with suffixes `suffix_width` digits wide.
struct OutputSpec {
  std::string path;
  std::optional<std::uint64_t> part_size;
  int suffix_width = 1;
  Overwrite overwrite = Overwrite::no;
  Checksum checksum = Checksum::none;
  PartFraming framing = PartFraming::none;  // with part_size: what begins each part
};

/// Opens the sink for spec. Without Overwrite::yes, an existing output file (or any existing
/// part path.part-N) is an Error, so nothing is ever overwritten silently.
Result<std::unique_ptr<ByteSink>> open_output(const OutputSpec& spec);

}  // namespace pdx
