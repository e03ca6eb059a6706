#pragma once
// The parallel executor: runs one Job per host through a Transport, at most `fanout` at a time,
// on an io_context with a thread per core while they are busy (core/io_threads.h). A job is
// the host's command (execute()), or a task given the host's open Session (execute_tasks()).
//
// Shape: `fanout` worker coroutines, each on its own strand, each taking the next job index from
// a shared counter until none is left. So the fan-out limit is the number of workers, every
// host's session lives on exactly one strand, and a slow host never holds up the others.
// Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops every running job (unless a SignalHook says not)
// through its StopSignal and starts no more; a later signal exits with status 130, but only once
// the first has had 3 s to stop the commands on the hosts (a second signal must not leave them
// running). A sink's failed write (core/output.h: a closed pipe, a full disk) stops the run the
// same way; the caller reads sink.error().
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <functional>
#include <vector>

#include "core/output.h"
#include "transport/transport.h"

namespace pdx {

struct ExecutorOptions {
  std::size_t fanout = 64;  // -f
  unsigned threads = 0;     // most io_context threads (core/io_threads.h); 0: one per core
};

/// Under the pdsh name (cmd/pdsh.cpp): called from the signal thread for a signal that would stop
/// the run, with the indices of the jobs started and not finished; returns whether it stops the
/// run (false: the run goes on, as after pdsh's first Ctrl-C). Empty: every signal stops it.
using SignalHook = std::function<bool(int signal, const std::vector<std::size_t>& running)>;

/// Run every job; return their results by index. `sink.finished()` is called exactly once per
/// job, including jobs never started because the run was interrupted (Failure::interrupted),
/// then `sink.close()` once. Each result's duration is measured here.
std::vector<HostResult> execute(Transport& transport, const std::vector<Job>& jobs,
                                OutputSink& sink, const ExecutorOptions& options,
                                const SignalHook& on_signal = {});

/// One host's work on its open session: any number of operations, one after the other, on the
/// job's strand; output to `io` (the sink). Its result is the host's. A throw is the host's
/// failure (Failure::local), as for a transport. Called concurrently for different hosts.
using HostTask = std::function<boost::asio::awaitable<HostResult>(Session& session, const Job& job,
                                                                  JobIo& io, StopSignal& stop)>;

/// As execute(), with `task` run on each host's session once open; a host whose session could
/// not be opened gets the open's failure and no task.
std::vector<HostResult> execute_tasks(Transport& transport, const std::vector<Job>& jobs,
                                      OutputSink& sink, const ExecutorOptions& options,
                                      const HostTask& task);

}  // namespace pdx
