#pragma once
// join: the bytes of several parts, in order, into one output -- cat(1) with checks. Also what
// `pdx split` runs, with a split sink as the output.
#include <string>
#include <vector>

#include "archive/byte_sink.h"
#include "base/result.h"

namespace pdx {

/// Copies parts (in order; "-" is stdin) into sink and finishes it. A part that is missing or
/// cannot be read is an Error naming it, and the sink is left unfinished.
Result<std::uint64_t> join_parts(const std::vector<std::string>& parts, ByteSink& sink);

}  // namespace pdx
