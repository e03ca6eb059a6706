#pragma once
// The parallel executor: runs one Job per host through a Transport, at most `fanout` at a time,
// on an io_context with a thread per core while they are busy (core/io_threads.h).
//
// Shape: `fanout` worker coroutines, each on its own strand, each taking the next job index from
// a shared counter until none is left. So the fan-out limit is the number of workers, every
// host's session lives on exactly one strand, and a slow host never holds up the others.
// Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops every running job through its StopSignal and starts no
// more; a second Ctrl-C exits at once with status 130. A sink's failed write (core/output.h:
// a closed pipe, a full disk) stops the run the same way; the caller reads sink.error().
#include <cstddef>
#include <vector>

#include "core/output.h"
#include "transport/transport.h"

namespace pdx {

struct ExecutorOptions {
  std::size_t fanout = 64;  // -f
  unsigned threads = 0;     // most io_context threads (core/io_threads.h); 0: one per core
};

/// Run every job; return their results by index. `sink.finished()` is called exactly once per
/// job, including jobs never started because the run was interrupted (Failure::interrupted),
/// then `sink.close()` once. Each result's duration is measured here.
std::vector<HostResult> execute(Transport& transport, const std::vector<Job>& jobs,
                                OutputSink& sink, const ExecutorOptions& options);

}  // namespace pdx
