#include "distribute/pull/pull.h"

#include "base/awaitable.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "core/executor.h"
#include "core/output.h"
#include "distribute/agent_start.h"
#include "distribute/progress_meter.h"
#include "distribute/pull/host_directory.h"
#include "distribute/pull/pull_link.h"
#include "distribute/pull/pull_receiver.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "distribute/staging_run.h"

namespace pdx {

namespace {

namespace asio = boost::asio;

HostOutcome host_failed(const std::string& error) {
  return {1, error, error, {}};
}

// How a host's task ends, for the executor and the progress meter.
HostResult ended(const HostOutcome& outcome) {
  HostResult r;
  r.exit_status = outcome.status;
  return r;
}

// What every host's task of one pull shares (the agent, its starts, the hosts pulled over ssh
// after all: StagingRun's). Each host's outcome and byte count are written by its own task.
struct PullRun : StagingRun {
  PullRun(const std::vector<Host>& hosts_, const JobTemplate& tmpl_, const PreparedAgent& agent_,
          const PullOptions& options_)
      : StagingRun(hosts_, tmpl_, agent_.location, agent_.binary.get(), unread),
        options(options_),
        outcomes(hosts_.size()),
        bytes(hosts_.size()) {}

  std::vector<std::string> unread;  // StagingRun's `local`: nothing is read here
  const PullOptions& options;
  std::vector<HostOutcome> outcomes;
  std::vector<std::uint64_t> bytes;
  std::vector<std::pair<std::string, std::string>> without;  // (label, why): under `mutex`

  std::string suffix(std::size_t i) const { return options.host_suffix ? "." + hosts[i].name : ""; }
  std::string directory(std::size_t i) const {
    std::string dir = options.local_dir;
    if (options.host_directories) dir += "/" + host_directory(hosts[i].label());
    return dir;
  }
  // The agent's command for host i: `--send` each REMOTE.
  std::string send_command(std::size_t i) const {
    std::vector<std::string> args;
    for (const auto& remote : options.remotes) args.push_back("--send=" + remote);
    if (options.host_suffix) args.push_back("--suffix=" + suffix(i));
    if (options.directories == Directories::refused) args.push_back("--no-directories");
    return agent_command(agent, args);
  }
};

// The tar's stdout into the host's receiver (and the meter); the first line of its stderr kept.
class TarSink final : public JobIo {
 public:
  TarSink(PullReceiver& receiver, ProgressMeter* progress)
      : receiver_(receiver), progress_(progress) {}
  void output(std::size_t, Stream stream, std::string_view bytes) override {
    if (stream == Stream::err) return complaint.add(bytes);
    if (progress_) progress_->add_bytes(bytes.size());
    receiver_.take(bytes);
  }

  StderrFirstLine complaint;

 private:
  PullReceiver& receiver_;
  ProgressMeter* progress_;
};

// Over the host's ssh session: pull_command's tar, its stdout unpacked as it comes.
asio::awaitable<HostResult> pull_over_ssh(PullRun& run, Session& session, const Job& job,
                                          PullReceiver& receiver, StopSignal& stop) {
  auto command = pull_command(run.options.remotes, run.suffix(job.index), run.options.directories);
  if (!command) co_return ended(run.outcomes[job.index] = host_failed(command.error()));
  TarSink sink(receiver, run.options.progress);
  ExecRequest request{*command, job.env, job.command_timeout, nullptr};
  HostResult ran = co_await session.exec(request, sink, stop);
  receiver.end();
  if (ran.failure != Failure::none || !ran.signal.empty()) co_return ran;
  std::string error = receiver.failed() ? receiver.failed()->message : "";
  if (ran.exit_status != 0) {
    std::string complaint = sink.complaint.text();
    if (complaint.empty()) complaint = "tar exit " + std::to_string(ran.exit_status);
    error += (error.empty() ? "" : "; ") + complaint;
  }
  HostOutcome& outcome = run.outcomes[job.index];
  outcome = error.empty() ? HostOutcome{0, "pulled", "", {}} : host_failed(error);
  co_return ended(outcome);
}

// Why a host whose stream came over the link fails, or "".
std::string linked_error(const PullReceiver& receiver, const LinkedPull& linked) {
  if (receiver.failed()) return receiver.failed()->message;
  if (linked.gave_up) return host_said(linked.reply);  // the agent's own words
  if (!linked.error.empty()) return "the data link from the host broke: " + linked.error;
  if (linked.reply.result.exit_status != 0) return host_said(linked.reply);
  return "";
}

// Over a direct link from the host's agent: the host's result, or nullopt when nothing came
// (the agent cannot run there, or no link could be made: noted) and the caller pulls over ssh.
asio::awaitable<std::optional<HostResult>> pull_direct(PullRun& run, Session& session,
                                                       const Job& job, PullReceiver& receiver,
                                                       StopSignal& stop) {
  std::string command = run.send_command(job.index);
  std::optional<LinkedPull> linked;
  AgentStarted started = co_await run.start_agent(
      session, job,
      [&]() -> asio::awaitable<ReplySink::Reply> {
        linked.emplace(co_await pull_over_link(session, job, command, receiver, run.options.relay,
                                               run.options.progress, stop));
        co_return linked->reply;
      },
      stop);
  const HostResult& ran = started.reply.result;
  bool came = linked && linked->linked;
  if (!came && (ran.failure != Failure::none || !ran.signal.empty())) co_return ran;
  HostOutcome& outcome = run.outcomes[job.index];
  if (!came && started.cannot_run) {
    std::lock_guard lock(run.mutex);
    run.without.emplace_back(run.hosts[job.index].label(), std::move(*started.cannot_run));
    co_return std::nullopt;
  }
  if (!started.error.empty()) co_return ended(outcome = host_failed(started.error));
  if (!came) {
    std::string why = linked && !linked->error.empty() ? linked->error : host_said(started.reply);
    if (run.options.data_via == DataVia::direct)
      co_return ended(outcome = host_failed("no direct data link: " + why));
    run.note_over_ssh(job.index, std::move(why));
    co_return std::nullopt;
  }
  if (ran.failure != Failure::none || !ran.signal.empty()) co_return ran;
  std::string error = linked_error(receiver, *linked);
  outcome = error.empty() ? HostOutcome{0, "pulled", "", {}} : host_failed(error);
  co_return ended(outcome);
}

asio::awaitable<HostResult> pull_host(PullRun& run, Session& session, const Job& job,
                                      StopSignal& stop) {
  PullReceiver receiver(run.options.unpacker, run.directory(job.index));
  std::optional<HostResult> done;
  // What a host sends is not known before it is sent: as much as a link is worth.
  if (direct_wanted(run.options.data_via, session, kDirectMinBytes))
    done = co_await pull_direct(run, session, job, receiver, stop);
  if (!done) done = co_await pull_over_ssh(run, session, job, receiver, stop);
  run.bytes[job.index] = receiver.bytes();
  co_return *done;
}

// Only the ends count: each command's output has a sink of its own.
class Ends final : public OutputSink {
 public:
  void output(std::size_t, Stream, std::string_view) override {}
  void finished(std::size_t, const HostResult&) override {}
};

}  // namespace

Result<void> check_local_dir(const std::string& local_dir) {
  if (local_dir.empty())
    return Error{"LOCAL_DIR is empty: name a directory here", ErrorKind::bad_input};
  std::filesystem::path at = local_dir;
  for (;;) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return Error{at.string() + ": not a directory", ErrorKind::bad_input};
      if (::access(at.c_str(), W_OK | X_OK) == 0) return {};
      std::string why = std::strerror(errno);
      return Error{at == local_dir
                       ? "cannot write into " + local_dir + ": " + why
                       : "cannot create " + local_dir + ": " + why + " (in " + at.string() + ")"};
    }
    if (errno != ENOENT || at == ".")
      return Error{"cannot create " + local_dir + ": " + std::strerror(errno)};
    std::filesystem::path parent = at.parent_path();
    at = parent.empty() || parent == at ? "." : parent;
  }
}

PullReport pull(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const PullOptions& options) {
  // --data-via ssh: this binary is not read, nor hashed for its name.
  PreparedAgent agent = prepare_agent("", options.data_via == DataVia::ssh);
  PullRun run(hosts, tmpl, agent, options);
  Ends ends;
  MeteredSink sink(ends, options.progress, MeteredSink::Count::hosts);
  auto results = execute_tasks(transport, make_jobs(hosts, tmpl), sink, {options.fanout, 0},
                               [&](Session& session, const Job& job, JobIo&, StopSignal& stop) {
                                 return pull_host(run, session, job, stop);
                               });
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (auto lost = unfinished(results[i])) run.outcomes[i] = std::move(*lost);
    run.outcomes[i].figures.number("bytes", static_cast<std::int64_t>(run.bytes[i]));
  }
  PullReport report{std::move(run.outcomes), run.agent_warnings(hosts)};
  if (!run.without.empty())
    report.warning += agent_fallback_warning(run.without, "pulling with the host's tar over ssh");
  if (std::string over = run.over_ssh_text(); !over.empty())
    report.warning += "pdx: warning: " + over + "\n";
  return report;
}

}  // namespace pdx
