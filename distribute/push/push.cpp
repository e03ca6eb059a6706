#include "distribute/push/push.h"

#include "base/awaitable.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

#include "agent/relay_link.h"
#include "archive/part_reader.h"
#include "base/error.h"
#include "base/fd.h"
#include "core/executor.h"
#include "core/run_env.h"
#include "distribute/agent_start.h"
#include "distribute/direct_link.h"
#include "distribute/held_agent.h"
#include "distribute/host_outcome.h"
#include "distribute/progress_meter.h"
#include "distribute/push/extract_set.h"
#include "distribute/push/frame_stream.h"
#include "distribute/push/manifest_check.h"
#include "distribute/push/posix_push.h"
#include "distribute/push/push_plan.h"
#include "distribute/relay/relay_group.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "distribute/staging_run.h"
#include "distribute/wave.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

namespace asio = boost::asio;
using Reply = ReplySink::Reply;

// How a host's task ends, for the run's sink (and the progress meter): its transport failure,
// else exit 1 when the host or a file of it failed.
HostResult ended_as(const PushedHost& outcome, HostResult ran) {
  if (ran.failure == Failure::none)
    ran.exit_status = outcome.error.empty() && outcome.failed.empty() ? 0 : 1;
  return ran;
}

// Hosts of a wave that get the same stream: equal plans, and all with the agent (one
// FrameStream, read once, broadcast to them, or with --relay passed host to host) or all
// without (one tar stream into their sh and tar).
struct Group {
  HostPushPlan plan;
  bool no_agent = false;                // its hosts are without the agent
  std::vector<std::size_t> members;     // positions in the wave; reader j of `source` is members[j]
  std::unique_ptr<FrameStream> stream;  // the agent's frames, or
  std::unique_ptr<PosixPush> posix;     // the tar stream and command of a POSIX push
  std::unique_ptr<RelayGroup> chain;    // --relay: host to host, else from here (no `source`)
  std::unique_ptr<Broadcast> source;    // last: destroyed before what it reads

  // Reader j's host ended (distribute/wave.h): neither its stream nor its relay waits for it.
  void leave(std::size_t j) {
    if (source) source->finish(j);
    if (chain) chain->ended(j);
  }
};

// What every host's task of one push shares. Each host's PushedHost is written by its own
// task only, or by its wave's plan while the host waits at the barrier.
struct PushRun : StagingRun {
  PushSources& sources;  // --checksum: hashes added by each wave's plan (under plan_mutex)
  const PushOptions& options;
  std::uint64_t archive_bytes;  // --extract: the parts' size
  std::string set;              // --extract: the parts' identity (extract_set_id), or ""
  // The agent's commands, as typed (list: DEST without its trailing '/': a file there is one;
  // held_list: the same, then staying for its stream, distribute/held_agent.h).
  std::string list_command, held_list_command, receive_command, relay_command;
  std::string list_through;     // for a DEST/ that `list` finds a symlink: listed through it
  std::string posix_list;       // posix_list_command, as typed
  std::string posix_extracted;  // --extract: posix_extracted_command, as typed
  PushReport& report;

  std::mutex plan_mutex;  // one wave's plan at a time: `sources` is shared
  // Under StagingRun::mutex:
  std::vector<std::pair<std::string, std::string>> posix;  // (label, why): the warning's
  std::vector<std::string> unlisted;                       // hosts whose find cannot list
  std::vector<std::pair<std::size_t, std::string>> notes;  // (host, what its agent noted)

  // take_receipt into host i's outcome, what its agent noted kept for the warnings.
  void take(const Reply& reply, std::size_t i) {
    PushedHost& outcome = report.hosts[i];
    std::vector<std::string> noted;
    outcome.written = take_receipt(reply, outcome.error, outcome.failed, &noted);
    std::lock_guard lock(mutex);
    for (auto& note : noted) notes.emplace_back(i, std::move(note));
  }
};

// The bytes one host of a plan takes (an archive's parts' size with --extract).
std::uint64_t bytes_of(const PushRun& run, const HostPushPlan& plan) {
  std::uint64_t bytes = run.archive_bytes;  // 0 without --extract; no files with it
  for (std::size_t f : plan.files) bytes += layout_of(run.sources, plan).files[f].wire_size();
  return bytes;
}

// About how many bytes the stream of `plan` holds: an archive's parts with --extract.
std::uint64_t stream_bytes(const PushRun& run, const HostPushPlan& plan) {
  return run.archive_bytes + stream_size(run.sources, plan);
}

// The options of a broadcast to a group's members, all running (no spool); `streams`
// broadcasts share the memory of one window. Each byte a reader takes is told to the progress
// meter.
Broadcast::Options broadcast_options(const PushRun& run, std::size_t streams = 1) {
  Broadcast::Options options;
  if (ProgressMeter* progress = run.options.progress)
    options.on_consume = [progress](std::size_t, std::size_t n) { progress->add_bytes(n); };
  options.window = std::max(options.window / streams, 4 * options.chunk);
  return options;
}

std::unique_ptr<Broadcast> broadcast(const PushRun& run, int input, std::size_t readers,
                                     std::size_t streams = 1) {
  Broadcast::Options options = broadcast_options(run, streams);
  auto started = Broadcast::start(input, readers, options);
  if (!started) throw FatalError(started.error());
  return std::move(*started);
}

// Step 2b, --relay: a group of two hosts or more goes host to host as one chain; the head's
// stream is started only once the chain links up, and from here only if it is called off.
void relay_group(PushRun& run, std::size_t first, Group& group) {
  std::vector<std::string> labels;
  for (std::size_t k : group.members) labels.push_back(run.hosts[first + k].label());
  Broadcast::Options head;
  if (ProgressMeter* progress = run.options.progress) {
    std::size_t hosts = group.members.size();  // what the head takes reaches every host
    head.on_consume = [progress, hosts](std::size_t, std::size_t n) {
      progress->add_bytes(n * hosts);
    };
  }
  group.chain = std::make_unique<RelayGroup>(std::move(labels), run.options.relay_options,
                                             group.stream->input(), stream_bytes(run, group.plan),
                                             std::move(head), broadcast_options(run));
}

// The stream of a plan, read from the start (an archive's parts with --extract).
Result<std::unique_ptr<FrameStream>> stream_of(const PushRun& run, const HostPushPlan& plan) {
  if (run.options.extract) return FrameStream::archive(run.options.sources);
  return FrameStream::files(layout_of(run.sources, plan), plan);
}

// A host of a wave to plan: its position, whether it has the agent, and what it has (the
// listing; for a host without the agent whose find could not list, none: DEST taken as empty).
struct ToPlan {
  std::size_t k;
  bool no_agent;
  HostListing listing;
};

// Step 2: the plans of a wave's listed hosts, grouped, each group's stream started. A host
// needing nothing is up to date; one that cannot take the sources (DEST a file) gets its error.
// The hosts without the agent form groups of their own (a tar stream each).
std::vector<Group> plan_wave(PushRun& run, std::size_t first, std::vector<ToPlan> hosts) {
  std::lock_guard plan_lock(run.plan_mutex);
  std::vector<Group> groups;
  if (run.options.checksum) {
    std::vector<std::pair<std::size_t, HostListing>> listed;
    for (auto& host : hosts)
      if (!host.no_agent) listed.emplace_back(host.k, std::move(host.listing));
    compare_contents(run.sources, listed);
    for (auto& [k, listing] : listed)
      std::find_if(hosts.begin(), hosts.end(), [k = k](auto& h) { return h.k == k; })->listing =
          std::move(listing);
  }
  for (auto& host : hosts) {
    PushedHost& outcome = run.report.hosts[first + host.k];
    // With --extract no sources are scanned: the plan is empty, DEST checked all the same.
    auto plan =
        plan_host(run.sources, host.listing, run.command_for(first + host.k, run.options.dest),
                  host.no_agent ? Lister::find : Lister::agent);
    if (!plan) {
      outcome.error = plan.error();
      continue;
    }
    bool holds_set = !run.set.empty() && host.listing.extracted == run.set;
    if (plan->empty() && (!run.options.extract || holds_set)) {
      outcome.up_to_date = true;
      continue;
    }
    auto same = std::find_if(groups.begin(), groups.end(), [&](auto& g) {
      return g.plan == *plan && g.no_agent == host.no_agent;
    });
    if (same == groups.end())
      same = groups.insert(groups.end(), Group{*plan, host.no_agent, {}, {}, {}, {}, {}});
    same->members.push_back(host.k);
  }
  for (auto group = groups.begin(); group != groups.end();) {
    if (!group->no_agent) {
      auto stream = stream_of(run, group->plan);
      if (!stream) throw FatalError(stream.error());  // the run's fatal error (PushWave::plan)
      group->stream = std::move(*stream);
    } else {
      auto made = run.options.extract
                      ? PosixPush::archive(run.options.sources, run.options.dest, run.set)
                      : PosixPush::files(run.sources, group->plan, run.options.dest);
      if (!made) {
        for (std::size_t k : group->members) run.report.hosts[first + k].error = made.error();
        group = groups.erase(group);
        continue;
      }
      group->posix = std::move(*made);
    }
    if (run.options.progress)
      run.options.progress->add_total(bytes_of(run, group->plan) * group->members.size());
    if (run.options.relay && !group->no_agent && group->members.size() > 1)
      relay_group(run, first, *group);
    ++group;
  }
  std::size_t streams = groups.size();
  for (auto& group : groups)
    if (!group.chain)
      group.source = broadcast(run, group.no_agent ? group.posix->input() : group.stream->input(),
                               group.members.size(), streams);
  return groups;
}

// A push's wave (distribute/wave.h): at most -f consecutive hosts, run at once, that meet once,
// between listing and receiving; the last to list or end plans the wave (plan_wave).
//
//   host task:  list_host -> listings / posix -> meet ... -> seat -> receive step
struct PushWave {
  PushWave(PushRun& run_, std::size_t first_, std::size_t size)
      : run(run_),
        first(first_),
        listings(size),
        posix(size),
        wave(size, {[this](const std::vector<std::size_t>& arrived) { return plan(arrived); }}) {}

  // The meeting's seating (must not throw): the arrived hosts' plans.
  std::vector<Group> plan(const std::vector<std::size_t>& arrived);
  void finish(std::vector<Group> done);

  PushRun& run;
  std::size_t first;                                 // host index of position 0
  std::vector<std::optional<HostListing>> listings;  // by position: written before meet()
  std::vector<std::optional<std::string>> posix;     // by position: why the agent cannot run
  Wave<Group> wave;                                  // last: its seating reads the above
};

std::vector<Group> PushWave::plan(const std::vector<std::size_t>& arrived) {
  std::vector<ToPlan> hosts;
  for (std::size_t k : arrived) {
    hosts.push_back(
        {k, posix[k].has_value(), listings[k] ? std::move(*listings[k]) : HostListing{}});
    if (posix[k]) {
      std::lock_guard run_lock(run.mutex);
      run.posix.emplace_back(run.hosts[first + k].label(), *posix[k]);
    }
  }
  return run.unless_fatal([&] { return plan_wave(run, first, std::move(hosts)); });
}

// A host's listing, or why there is none: a command that did not run to its end (`ran`), or a
// reply that said no (the host's error, recorded). `posix`: the agent cannot run there (why);
// the listing, if any, is then its find's.
struct Listed {
  HostResult ran;
  std::optional<HostListing> listing;
  std::optional<std::string> posix;
};

// --extract where the agent cannot run: does the host hold the set unpacked, as its sh recorded
// it (posix_extracted_command)? Nothing else is listed.
asio::awaitable<Listed> list_extracted(PushRun& run, Session& session, const Job& job,
                                       std::string why, StopSignal& stop) {
  const std::string check = run.command_for(job.index, run.posix_extracted);
  Reply reply = co_await run_command(session, job, check, nullptr, stop);
  if (reply.result.failure != Failure::none) co_return Listed{reply.result, {}, {}};
  HostListing listing;
  if (reply.result.exit_status == 0 && reply.out == "extracted\n") listing.extracted = run.set;
  co_return Listed{{}, std::move(listing), std::move(why)};
}

// Step 1 where the agent cannot run (`why`): DEST listed by the host's find. With --extract or
// --checksum nothing is listed (such hosts are sent everything, but for a set held), nor where
// find cannot list.
asio::awaitable<Listed> list_find(PushRun& run, Session& session, const Job& job, std::string why,
                                  StopSignal& stop) {
  if (run.options.extract || run.options.checksum) co_return Listed{{}, {}, std::move(why)};
  PushedHost& outcome = run.report.hosts[job.index];
  // Command lines as named strings, not temporaries: GCC 12 miscompiles a coroutine's const
  // std::string& parameter bound to one (distribute/agent_start.cpp).
  const std::string list = run.command_for(job.index, run.posix_list);
  Reply reply = co_await run_command(session, job, list, nullptr, stop);
  if (reply.result.failure != Failure::none) co_return Listed{reply.result, {}, {}};
  if (reply.result.exit_status == kNoListing && reply.out.empty()) {
    std::lock_guard lock(run.mutex);
    run.unlisted.push_back(run.hosts[job.index].label());
    co_return Listed{{}, {}, std::move(why)};
  }
  if (reply.result.exit_status != 0 || !reply.result.signal.empty()) {
    outcome.error = "cannot list DEST: " + host_said(reply);
    co_return Listed{};
  }
  auto listing = reply.overflow ? Error{"over its limit"} : parse_posix_listing(reply.out);
  if (listing) co_return Listed{{}, std::move(*listing), std::move(why)};
  outcome.error = "malformed listing from the host's find: " + listing.error();
  co_return Listed{};
}

asio::awaitable<Listed> list_posix(PushRun& run, Session& session, const Job& job, std::string why,
                                   StopSignal& stop) {
  if (run.options.extract && !run.set.empty())
    return list_extracted(run, session, job, std::move(why), stop);
  return list_find(run, session, job, std::move(why), stop);
}

// Step 1: the host's listing of DEST, the agent deployed first where it is missing; where it
// held_agent_for(), by the agent that stays in `held`.
asio::awaitable<Listed> list_host(PushRun& run, Session& session, const Job& job,
                                  std::optional<HeldAgent>& held, StopSignal& stop) {
  if (run.options.no_agent) co_return co_await list_posix(run, session, job, "--no-agent", stop);
  PushedHost& outcome = run.report.hosts[job.index];
  const bool hold = held_agent_for(job);
  const std::string list =
      run.command_for(job.index, hold ? run.held_list_command : run.list_command);
  AgentStarted started = co_await run.start_agent(
      session, job,
      [&]() {
        if (!hold) return run_command(session, job, list, nullptr, stop);
        held.emplace(session, job, list, stop);  // a run before it (an upload asked) has ended
        return held->listed();
      },
      stop);
  Reply& reply = started.reply;
  if (reply.result.failure != Failure::none) co_return Listed{reply.result, {}, {}};
  if (started.cannot_run)
    co_return co_await list_posix(run, session, job, std::move(*started.cannot_run), stop);
  if (!started.error.empty()) {
    outcome.error = std::move(started.error);
    co_return Listed{};
  }
  auto listing = parse_listing(reply.out);
  bool link = listing &&
              (listing->dest.kind == EntryKind::symlink || listing->dest.kind == EntryKind::other);
  if (link && !run.list_through.empty()) {
    if (held) co_await held->release();
    const std::string through = run.command_for(job.index, run.list_through);
    reply = co_await run_command(session, job, through, nullptr, stop);
    if (reply.result.failure != Failure::none) co_return Listed{reply.result, {}, {}};
    listing = parse_listing(reply.out);
  }
  if (listing) co_return Listed{{}, std::move(*listing), {}};
  if (reply.result.exit_status != 0)
    outcome.error = "agent failed: " + host_said(reply);
  else
    outcome.error = "malformed reply from the agent: " + listing.error();
  co_return Listed{};
}

// A stream of `plan` for one host alone, read from the start.
struct OwnStream {
  std::unique_ptr<FrameStream> stream;
  std::unique_ptr<Broadcast> source;
};
Result<OwnStream> own_stream(PushRun& run, const HostPushPlan& plan) {
  OwnStream own;
  {
    std::lock_guard plan_lock(run.plan_mutex);  // `sources` is shared with later waves' plans
    own.stream = TRY(stream_of(run, plan));
    own.source = TRY(Broadcast::start(own.stream->input(), 1, broadcast_options(run)));
  }
  if (run.options.progress) run.options.progress->add_total(bytes_of(run, plan));
  return own;
}

// The host's receive command again, sent a stream of its own from the start; an empty reply
// with `error` set where that stream cannot be made.
asio::awaitable<Reply> receive_own(PushRun& run, Session& session, const Job& job,
                                   const HostPushPlan& plan, const std::string& receive,
                                   std::string& error, StopSignal& stop) {
  auto own = own_stream(run, plan);
  if (!own) {
    error = own.error();
    co_return Reply{};
  }
  Reply reply;
  {
    BroadcastInput again(*own->source, 0);
    reply = co_await run_command(session, job, receive, &again, stop);
  }
  own->source.reset();  // before the stream it reads
  run.note_local(own->stream->errors());
  co_return reply;
}

// Step 3: the group's stream to the host's agent; its receipt says what was written. An agent
// gone from the host since its listing (its ~/.cache/pdx removed), or a copy of it no longer to
// be trusted, is deployed again as step 1 does (deploy_agent: the static build where the host
// cannot run pdx), and the host sent a stream of its own, from the start, each time its command
// runs again (the group's has gone on without it).
asio::awaitable<HostResult> receive_host(PushRun& run, Session& session, const Job& job,
                                         const HostPushPlan& plan, InputSource& input,
                                         StopSignal& stop) {
  const std::string receive = run.command_for(job.index, run.receive_command);
  PushedHost& outcome = run.report.hosts[job.index];
  Reply reply = co_await run_command(session, job, receive, &input, stop);
  if (agent_upload_asked(run.agent, reply)) {
    input.finish();
    std::string error;
    AgentStarted started = co_await deploy_agent(
        std::move(reply), session, job, run.agent, run.binary,
        [&]() { return receive_own(run, session, job, plan, receive, error, stop); }, stop);
    if (!error.empty()) {
      outcome.error = std::move(error);
      co_return HostResult{};
    }
    run.note_agent(job.index, started);
    if (started.reply.result.failure != Failure::none) co_return started.reply.result;
    if (started.cannot_run || !started.error.empty()) {
      outcome.error = started.cannot_run ? "the agent cannot run there since DEST was listed: " +
                                               *started.cannot_run
                                         : std::move(started.error);
      co_return HostResult{};
    }
    reply = std::move(started.reply);
  }
  if (reply.result.failure != Failure::none) co_return reply.result;
  run.take(reply, job.index);
  co_return HostResult{};
}

// Step 3 over a direct link (distribute/direct_link.h): the host's reader of its group's
// stream sent to its agent's --relay command; nullopt when no link could be made and nothing was
// received: the caller sends over ssh (--data-via direct: the host fails instead).
asio::awaitable<std::optional<HostResult>> receive_direct(PushRun& run, Session& session,
                                                          const Job& job, Broadcast& source,
                                                          std::size_t reader, HeldAgent* held,
                                                          StopSignal& stop) {
  const std::string command = run.command_for(job.index, run.relay_command);
  DirectRan ran = co_await direct_receive(session, job, command, source, reader,
                                          run.options.relay_options, stop, held);
  if (ran.reply.result.failure != Failure::none) co_return ran.reply.result;
  PushedHost& outcome = run.report.hosts[job.index];
  if (!ran.linked) {
    // An agent gone since the listing: over ssh, where receive_host deploys it again.
    if (agent_upload_asked(run.agent, ran.reply)) co_return std::nullopt;
    std::string why = !ran.error.empty() ? ran.error : host_said(ran.reply);
    if (run.options.data_via == DataVia::direct) {
      outcome.error = "no direct data link: " + why;
      co_return HostResult{};
    }
    run.note_over_ssh(job.index, std::move(why));
    co_return std::nullopt;
  }
  run.take(ran.reply, job.index);
  if (outcome.error.empty() && !ran.error.empty()) outcome.error = std::move(ran.error);
  co_return HostResult{};
}

// Step 3, a POSIX push: the wave's tar stream into the host's sh and tar.
asio::awaitable<HostResult> receive_posix(PushRun& run, Session& session, const Job& job,
                                          const Group& group, InputSource& input,
                                          StopSignal& stop) {
  Reply reply = co_await run_command(
      session, job, run.command_for(job.index, group.posix->command()), &input, stop);
  if (reply.result.failure != Failure::none) co_return reply.result;
  read_posix_reply(reply, run.report.hosts[job.index]);
  co_return HostResult{};
}

// Step 3, --relay: the host's part of its group's chain, its frames from the previous host
// (the head's from here), through its agent that listed where it stays (`held`); nullopt when
// the chain was called off, nothing received.
asio::awaitable<std::optional<HostResult>> relay_host(PushRun& run, Session& session,
                                                      const Job& job, RelayGroup& relay,
                                                      std::size_t j, HeldAgent* held,
                                                      StopSignal& stop) {
  const std::string command = run.command_for(job.index, run.relay_command);
  std::optional<RelayGroup::Ran> ran =
      co_await relay.relayed(session, job, j, command, run.options.data_via, held, stop);
  if (!ran) co_return std::nullopt;
  if (!ran->over_ssh.empty()) run.note_over_ssh(job.index, std::move(ran->over_ssh));
  if (ran->reply.result.failure != Failure::none) co_return ran->reply.result;
  PushedHost& outcome = run.report.hosts[job.index];
  if (!ran->error.empty())
    outcome.error = std::move(ran->error);
  else
    run.take(ran->reply, job.index);
  if (outcome.error.empty() && !ran->forwarded.empty())  // a failed host's own line says it
    run.note_forwarded(job.index, std::move(ran->forwarded));
  co_return HostResult{};
}

// Step 3 over ssh to the agent that listed and stayed: its receipt.
asio::awaitable<HostResult> receive_held(PushRun& run, const Job& job, HeldAgent& held,
                                         InputSource& input) {
  Reply reply = co_await held.receive(input);
  if (reply.result.failure != Failure::none) co_return reply.result;
  run.take(reply, job.index);
  co_return HostResult{};
}

// Step 3 from here: reader `reader` of the group's `source` over a direct link where wanted
// (direct_wanted), else through the host's ssh channel; either way to the agent that listed, if
// it waits (a link that cannot be made ends it: over ssh, a command of its own).
asio::awaitable<HostResult> star_host(PushRun& run, Session& session, const Job& job,
                                      const HostPushPlan& plan, Broadcast& source,
                                      std::size_t reader, HeldAgent* held, StopSignal& stop) {
  if (direct_wanted(run.options.data_via, session, stream_bytes(run, plan))) {
    std::optional<HostResult> sent =
        co_await receive_direct(run, session, job, source, reader, held, stop);
    if (sent) co_return *sent;
  }
  BroadcastInput input(source, reader);
  if (held && held->waiting()) co_return co_await receive_held(run, job, *held, input);
  co_return co_await receive_host(run, session, job, plan, input, stop);
}

// Step 3 for host k, after the barrier: what its seat in the wave says. The agent that listed and
// stayed (`held`) takes its chain's part, or a star's stream over a direct link or ssh; a POSIX
// group's tar, or nothing, runs once it has gone.
asio::awaitable<HostResult> receive_step(PushRun& run, PushWave& wave, std::size_t k,
                                         Session& session, const Job& job,
                                         std::optional<HeldAgent>& held, StopSignal& stop) {
  Wave<Group>::Seat seat = wave.wave.seat(0, k);
  HeldAgent* stays = held ? &*held : nullptr;
  if (held && (!seat.group || seat.group->posix)) co_await held->release();
  if (!seat.group) co_return HostResult{};
  Group& group = *seat.group;
  if (group.posix) {
    BroadcastInput input(*group.source, seat.reader);
    co_return co_await receive_posix(run, session, job, group, input, stop);
  }
  if (group.chain) {
    std::optional<HostResult> relayed =
        co_await relay_host(run, session, job, *group.chain, seat.reader, stays, stop);
    if (relayed) co_return *relayed;
    auto source = group.chain->star_source();  // called off: from here after all
    if (!source) {
      run.report.hosts[job.index].error = source.error();
      co_return HostResult{};
    }
    co_return co_await star_host(run, session, job, group.plan, **source, seat.reader, stays, stop);
  }
  co_return co_await star_host(run, session, job, group.plan, *group.source, seat.reader, stays,
                               stop);
}

// A host's push but for the end of its held agent.
asio::awaitable<HostResult> push_steps(PushWave& wave, std::size_t k, Session& session,
                                       const Job& job, std::optional<HeldAgent>& held,
                                       StopSignal& stop) {
  PushRun& run = wave.run;
  PushedHost& outcome = run.report.hosts[job.index];
  Listed listed = co_await list_host(run, session, job, held, stop);
  if (listed.posix) {
    wave.posix[k] = std::move(*listed.posix);
    wave.listings[k] = std::move(listed.listing);
  } else if (listed.listing) {
    wave.listings[k] = std::move(*listed.listing);
  } else {
    co_return ended_as(outcome, listed.ran);
  }
  // Ctrl-C may end the wait and complete the barrier (the last host ending) at once: either way
  // no receive starts.
  if (!co_await wave.wave.meet(0, k, stop) || stop.stopped()) co_return interrupted();
  HostResult received = co_await receive_step(run, wave, k, session, job, held, stop);
  co_return ended_as(outcome, received);
}

// A host's whole push, on its one session: its held agent (if any) ended before the session is
// given back, whatever happened.
asio::awaitable<HostResult> push_host(PushWave& wave, std::size_t k, Session& session,
                                      const Job& job, StopSignal& stop) {
  std::optional<HeldAgent> held;
  std::exception_ptr thrown;
  HostResult result;
  try {
    result = co_await push_steps(wave, k, session, job, held, stop);
  } catch (...) {
    thrown = std::current_exception();
  }
  if (held) co_await held->release();
  if (thrown) std::rethrow_exception(thrown);
  co_return result;
}

// A wave's last end (WaveEnds): its streams freed, the broadcasts and chains before what they
// read, then their errors and relays noted.
void PushWave::finish(std::vector<Group> done) {
  for (auto& group : done) {
    if (group.chain) run.note_relay(*group.chain);
    group.source.reset();
    group.chain.reset();
  }
  for (auto& group : done) {
    if (group.stream) run.note_local(group.stream->errors());
    if (group.posix) run.note_local(group.posix->finish());
  }
}

// The warnings of the run, each said once: hosts pushed without the agent, relays called off,
// hosts that bridged around one they forwarded to (by host). Above the progress line, which is
// still drawn.
void warn(PushRun& run) {
  std::string text;
  if (std::string off = run.called_off_text(); !off.empty()) text += "pdx: warning: " + off + "\n";
  std::sort(run.forwarded.begin(), run.forwarded.end());
  for (const auto& [i, said] : run.forwarded)
    text += "pdx: warning: " + run.hosts[i].label() + ": " + said + "\n";
  for (const auto& line : run.bridged_heads) text += "pdx: warning: " + line + "\n";
  if (std::string over = run.over_ssh_text(); !over.empty()) text += "pdx: warning: " + over + "\n";
  std::sort(run.notes.begin(), run.notes.end());
  for (const auto& [i, note] : run.notes)
    text += "pdx: warning: " + run.hosts[i].label() + ": " + note + "\n";
  std::vector<std::string> replaced;
  for (std::size_t i : run.replaced) replaced.push_back(run.hosts[i].label());
  std::vector<std::pair<std::string, std::string>> statics;
  for (const auto& [i, why] : run.statics) statics.emplace_back(run.hosts[i].label(), why);
  text += agent_replaced_warning(replaced) + agent_static_warning(statics);
  if (!run.posix.empty())
    text += agent_fallback_warning(run.posix, "pushing with the host's sh and tar");
  text += posix_unlisted_warning(run.unlisted);
  print_above(run.options.progress, text);
}

}  // namespace

PushReport push(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const PushOptions& options) {
  PushSources sources;
  std::uint64_t archive_bytes = 0;
  std::string set;
  if (options.extract) {
    PartReader parts(options.sources);
    // With -m, the parts' SHA-256s were checked against the manifest already.
    if (auto checked = parts.check(options.manifest ? SetCheck::sizes : SetCheck::contents);
        !checked) {
      throw UsageError(checked.error());
    }
    archive_bytes = parts.total_size();
    set = extract_set_id(options.sources, parts, options.manifest);
  } else {
    auto scanned =
        scan_sources(options.sources, options.dest, options.safe_links ? Links::safe : Links::all);
    if (!scanned) throw UsageError(scanned.error());
    sources = std::move(*scanned);
  }
  std::fputs(source_warnings(sources).c_str(), stderr);
  PreparedAgent agent = prepare_agent(options.agent, options.no_agent);

  PushReport report;
  report.hosts.resize(hosts.size());
  report.local = sources.unread;
  std::string bare = options.dest;
  while (bare.size() > 1 && bare.ends_with('/')) bare.pop_back();
  std::vector<std::string> list_args = {"--list=" + bare};
  for (const auto& top : sources.tops) list_args.push_back("--under=" + top);
  if (options.checksum) list_args.push_back("--checksum");
  std::vector<std::string> set_arg;
  if (!set.empty()) set_arg.push_back("--set=" + set);
  list_args.insert(list_args.end(), set_arg.begin(), set_arg.end());
  auto with_set = [&](std::string arg) {
    std::vector<std::string> args = {std::move(arg)};
    args.insert(args.end(), set_arg.begin(), set_arg.end());
    return args;
  };
  std::vector<std::string> held_args = list_args;  // --set in it already
  held_args.push_back("--receive=" + options.dest);
  held_args.push_back("--relay=" + options.dest);
  std::string list_through;
  if (bare != options.dest) {
    std::vector<std::string> through = list_args;
    through[0] = "--list=" + options.dest;
    list_through = agent_command(agent.location, through);
  }
  PushRun run{{hosts, tmpl, agent.location, agent.binary.get(), report.local},
              sources,
              options,
              archive_bytes,
              set,
              agent_command(agent.location, list_args),
              agent_command(agent.location, held_args),
              agent_command(agent.location, with_set("--receive=" + options.dest)),
              agent_command(agent.location, with_set("--relay=" + options.dest)),
              list_through,
              posix_list_command(options.dest, sources.tops),
              set.empty() ? "" : posix_extracted_command(options.dest, set),
              report,
              {},
              {},
              {},
              {}};
  std::size_t size = std::max<std::size_t>(options.fanout, 1);
  std::deque<PushWave> waves = make_waves<PushWave>(hosts.size(), size, run);
  WaveEnds<PushWave> ends(waves, size);
  MeteredSink sink(ends, options.progress, MeteredSink::Count::hosts);  // each host ends once
  auto results = execute_waves(transport, make_jobs(hosts, tmpl), waves, size, sink, push_host);
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (results[i].failure != Failure::none) report.hosts[i].result = results[i];
  run.rethrow_fatal();
  warn(run);
  if (options.manifest) check_manifest(*options.manifest, report);
  return report;
}

}  // namespace pdx
