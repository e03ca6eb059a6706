#pragma once
// gzip, bzip2 and zstd compression done by pdx itself rather than by libarchive's filters: zstd
// frames carry a content checksum (libarchive 3.6 writes none, so corruption would go unnoticed)
// and all three can use several threads.
#include <memory>
#include <optional>

#include "archive/byte_sink.h"
#include "base/result.h"

namespace pdx {

enum class Codec { gzip, bzip2, zstd };

struct CompressorOptions {
  Codec codec = Codec::zstd;
  std::optional<int> level;  // gzip 1-9 (default 6), bzip2 1-9 (default 9), zstd 1-19 (default 3)
  int threads = 1;
};

/// A sink that compresses what is written to it into `next` and finishes `next` in finish().
/// gzip with threads > 1 compresses blocks in parallel (as pigz does) into one gzip member
/// that any gzip reader takes. bzip2 is written as one bzip2 stream per block (as pbzip2 writes
/// it), compressed on up to `threads` threads while the caller goes on; bzip2 -d and GNU tar read
/// it as one. An out-of-range level is an Error.
Result<std::unique_ptr<ByteSink>> compressing_sink(const CompressorOptions& options,
                                                   ByteSink& next);

}  // namespace pdx
