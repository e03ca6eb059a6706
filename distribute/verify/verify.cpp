#include "distribute/verify/verify.h"

#include "base/awaitable.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>
#include <mutex>
#include <optional>

#include "base/error.h"
#include "base/fd.h"
#include "core/executor.h"
#include "distribute/agent_run.h"
#include "distribute/agent_start.h"
#include "distribute/progress_meter.h"
#include "distribute/remote_agent.h"
#include "distribute/remote_commands.h"
#include "distribute/reply_sink.h"
#include "distribute/verify/host_tally.h"
#include "distribute/verify/listing.h"

namespace pdx {

namespace {

namespace asio = boost::asio;

HostOutcome host_failed(const std::string& error) {
  return {1, error, error, {}};
}

// One listing command's output as it arrives, from its host's strand: its records into the
// host's tally (ListingParser or AgentListingParser); the start of its stdout and the end of its
// stderr kept in `kept` (for start_agent and host_said), the first line of stderr in `complaint`.
template <class Parser>
class ListingSink final : public JobIo {
 public:
  static constexpr std::size_t kHead = 64;  // of stdout kept: only whether there is any matters

  ListingSink(Parser parser, const Reference* reference, FileDigest kind)
      : parser_(std::move(parser)), tally_(reference, kind) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    if (stream == Stream::err) {
      kept_.output(index, stream, bytes);
      complaint_.add(bytes);
      return;
    }
    std::size_t held = kept_.reply().out.size();
    if (held < kHead) kept_.output(index, stream, bytes.substr(0, kHead - held));
    if (failed_) return;
    auto fed = parser_.feed(bytes, [this](const ListingRecord& r) { tally_.add(r); });
    if (!fed) failed_ = Error{fed.error()};
  }

  ReplySink::Reply& reply() { return kept_.reply(); }
  const Parser& parser() const { return parser_; }
  // The malformed listing's Error, if any (at the end: a listing cut short too).
  std::optional<Error> malformed() const {
    if (failed_) return failed_;
    if (auto ended = parser_.end(); !ended) return Error{ended.error()};
    return std::nullopt;
  }
  std::string complaint() const { return complaint_.text(); }
  HostOutcome outcome() const { return tally_.outcome(); }

 private:
  Parser parser_;
  HostTally tally_;
  ReplySink kept_;
  StderrFirstLine complaint_;
  std::optional<Error> failed_;
};

using AgentSink = ListingSink<AgentListingParser>;
using PosixSink = ListingSink<ListingParser>;

// What every host's task of one verify shares (the agent and what its starts noted: AgentRun's).
// Each host's outcome is written by its own task.
struct VerifyRun : AgentRun {
  const VerifyOptions& options;
  std::string list;   // the agent's command
  std::string posix;  // the command through the host's POSIX tools
  std::vector<HostOutcome> outcomes;
  std::vector<FileDigest> kinds;  // by host, with --hash: what its hash records hold

  std::vector<std::pair<std::string, std::string>> without;  // (label, why): under `mutex`
  std::once_flag pool_made;
  std::optional<asio::thread_pool> pool;  // where the reference's SHA-256s are hashed
  std::once_flag sha256_once;             // set when they were hashed before the run
  Result<void> sha256_hashed;
};

// On the pool's thread: the reference's SHA-256s, once.
asio::awaitable<void> hash_sha256(VerifyRun* run) {
  std::call_once(run->sha256_once, [run] {
    run->sha256_hashed = hash_reference(*run->options.reference, FileDigest::sha256);
  });
  co_return;
}

// The reference's SHA-256s, for a host without the agent: hashed here the first time one needs
// them, on a thread of their own (made from an io thread, so that it inherits their blocked
// signals), while the io threads go on; the host's task resumes when they are in.
asio::awaitable<Result<void>> reference_sha256(VerifyRun& run) {
  const Reference* reference = run.options.reference;
  if (!reference || !reference->has_names || !run.options.hash) co_return Result<void>{};
  std::call_once(run.pool_made, [&run] { run.pool.emplace(1); });
  co_await asio::co_spawn(*run.pool, hash_sha256(&run), asio::use_awaitable);
  co_return run.sha256_hashed;
}

// The outcome of a POSIX listing that ran to its end (not a transport failure).
HostOutcome posix_outcome(const VerifyRun& run, const PosixSink& sink, const HostResult& ran) {
  if (ran.exit_status == kNoDirectoryStatus)
    return host_failed(printable(run.options.remote_dir) + ": no such directory");
  if (auto malformed = sink.malformed()) return host_failed(malformed->message);
  if (ran.exit_status != 0) {
    std::string complaint = sink.complaint();
    return host_failed(complaint.empty()
                           ? "listing failed with exit " + std::to_string(ran.exit_status)
                           : complaint);
  }
  return sink.outcome();
}

// The outcome of the agent's listing that ran to its end: a failed agent says why on stderr,
// a hostile or broken one sends frames that do not parse.
HostOutcome agent_outcome(const VerifyRun& run, AgentSink& sink) {
  const ReplySink::Reply& reply = sink.reply();
  if (reply.result.exit_status != 0) return host_failed("agent failed: " + host_said(reply));
  if (auto malformed = sink.malformed()) return host_failed(malformed->message);
  if (sink.parser().top() != EntryKind::directory)
    return host_failed(printable(run.options.remote_dir) + ": no such directory");
  return sink.outcome();
}

// How a host's task ends, for the executor and the progress meter.
HostResult ended(const HostOutcome& outcome) {
  HostResult r;
  r.exit_status = outcome.status;
  return r;
}

// Through the agent: its listing, deployed first where missing. Without `cannot_run` the host is
// done: its outcome written, or a transport failure in `ran`; with it, why the agent cannot run
// there.
struct AgentListed {
  HostResult ran;
  std::optional<std::string> cannot_run;
};

asio::awaitable<AgentListed> through_agent(VerifyRun& run, Session& session, const Job& job,
                                           StopSignal& stop) {
  std::optional<AgentSink> sink;
  const Reference* reference = run.options.reference;
  AgentStarted started = co_await run.start_agent(
      session, job,
      [&]() -> asio::awaitable<ReplySink::Reply> {
        sink.emplace(AgentListingParser(run.options.hash), reference, FileDigest::xxh3);
        ExecRequest request{run.list, job.env, job.command_timeout, nullptr};
        sink->reply().result = co_await session.exec(request, *sink, stop);
        co_return sink->reply();
      },
      stop);
  const HostResult& ran = started.reply.result;
  if (ran.failure != Failure::none || !ran.signal.empty()) co_return AgentListed{ran, {}};
  if (started.cannot_run) co_return AgentListed{{}, std::move(started.cannot_run)};
  HostOutcome& outcome = run.outcomes[job.index];
  outcome = started.error.empty() ? agent_outcome(run, *sink) : host_failed(started.error);
  co_return AgentListed{ended(outcome), {}};
}

// Through the host's find and sha256sum.
asio::awaitable<HostResult> through_posix(VerifyRun& run, Session& session, const Job& job,
                                          StopSignal& stop) {
  HostOutcome& outcome = run.outcomes[job.index];
  if (run.options.hash) run.kinds[job.index] = FileDigest::sha256;
  Result<void> hashed = co_await reference_sha256(run);
  if (!hashed) {
    outcome = host_failed(hashed.error());
    co_return ended(outcome);
  }
  PosixSink sink(ListingParser(), run.options.reference, FileDigest::sha256);
  ExecRequest request{run.posix, job.env, job.command_timeout, nullptr};
  HostResult ran = co_await session.exec(request, sink, stop);
  if (ran.failure != Failure::none || !ran.signal.empty()) co_return ran;
  outcome = posix_outcome(run, sink, ran);
  co_return ended(outcome);
}

// `label` by value: a coroutine's reference parameters must outlive it, and this one is made
// for the call.
asio::awaitable<HostResult> verify_host(VerifyRun& run, Session& session, const Job& job,
                                        std::string label, StopSignal& stop) {
  std::string why = "--no-agent";
  if (!run.options.no_agent) {
    AgentListed listed = co_await through_agent(run, session, job, stop);
    if (!listed.cannot_run) co_return listed.ran;
    why = std::move(*listed.cannot_run);
  }
  {
    std::lock_guard lock(run.mutex);
    run.without.emplace_back(label, std::move(why));
  }
  co_return co_await through_posix(run, session, job, stop);
}

// Only the ends count: each command's output has a sink of its own.
class Ends final : public OutputSink {
 public:
  void output(std::size_t, Stream, std::string_view) override {}
  void finished(std::size_t, const HostResult&) override {}
};

// Without a reference: the hosts whose listing is not the most common one among those whose
// hashes are of the same kind differ (the same files hash differently by SHA-256 and XXH3).
void mark_odd_hosts(std::vector<HostOutcome>& outcomes, const std::vector<FileDigest>& kinds) {
  std::map<std::pair<FileDigest, std::string>, std::size_t> hosts_by_listing;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i].status == 0) ++hosts_by_listing[{kinds[i], outcomes[i].what}];
  auto common = [&](FileDigest kind) {  // the first of the most hosts, in the map's order
    const std::string* listing = nullptr;
    std::size_t most = 0;
    for (const auto& [key, count] : hosts_by_listing)
      if (key.first == kind && count > most) {
        listing = &key.second;
        most = count;
      }
    return listing;
  };
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    HostOutcome& o = outcomes[i];
    if (o.status != 0) continue;
    if (o.what != *common(kinds[i])) o.status = 1;
    o.figures.string("result", o.status == 0 ? "match" : "differs");
  }
}

}  // namespace

VerifyReport verify(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                    const VerifyOptions& options) {
  Reference* reference = options.reference;
  if (reference && reference->has_names && options.hash) {
    auto hashed =
        hash_reference(*reference, options.no_agent ? FileDigest::sha256 : FileDigest::xxh3);
    if (!hashed) throw FatalError(hashed.error());
  }
  PreparedAgent agent = prepare_agent(options.agent, options.no_agent);
  std::vector<std::string> list_args = {"--list=" + options.remote_dir, "--under=."};
  if (options.hash) list_args.push_back("--checksum");
  VerifyRun run{{agent.location, agent.binary.get()},
                options,
                agent_command(agent.location, list_args),
                verify_command(options.remote_dir, options.hash),
                std::vector<HostOutcome>(hosts.size()),
                std::vector<FileDigest>(hosts.size(), FileDigest::xxh3),
                {},
                {},
                {},
                {},
                {}};

  if (options.no_agent) std::call_once(run.sha256_once, [] {});  // hashed above

  Ends ends;
  MeteredSink sink(ends, options.progress, MeteredSink::Count::hosts);
  auto results =
      execute_tasks(transport, make_jobs(hosts, tmpl), sink, {options.fanout, 0},
                    [&](Session& session, const Job& job, JobIo&, StopSignal& stop) {
                      return verify_host(run, session, job, hosts[job.index].label(), stop);
                    });
  run.pool.reset();  // joined: no hashing goes on
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (auto lost = unfinished(results[i])) run.outcomes[i] = std::move(*lost);
  if (!options.reference) mark_odd_hosts(run.outcomes, run.kinds);
  VerifyReport report{std::move(run.outcomes), run.agent_warnings(hosts)};
  if (!run.without.empty())
    report.warning +=
        agent_fallback_warning(run.without, "verifying with the host's find and sha256sum");
  return report;
}

}  // namespace pdx
