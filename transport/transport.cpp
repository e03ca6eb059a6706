#include "transport/transport.h"

#include <optional>

#include "transport/broadcast.h"

namespace pdx {

boost::asio::awaitable<HostResult> Transport::run(const Job& job, JobIo& io, StopSignal& stop) {
  std::optional<BroadcastInput> input;  // finished however the run ends
  if (job.stdin_source) input.emplace(*job.stdin_source, job.index);
  Opened opened = co_await open(job, stop);
  if (!opened.session) co_return opened.failure;
  ExecRequest request{job.command, job.env, job.command_timeout, input ? &*input : nullptr};
  co_return co_await opened.session->exec(request, io, stop);
}

boost::asio::awaitable<bool> Session::answers(std::chrono::milliseconds) {
  co_return alive();
}

}  // namespace pdx
