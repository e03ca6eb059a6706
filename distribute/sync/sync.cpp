#include "distribute/sync/sync.h"

#include <fcntl.h>
#include <sys/mman.h>

#include "base/awaitable.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

#include "agent/delta_protocol.h"
#include "archive/size.h"
#include "archive/temp_file.h"
#include "base/error.h"
#include "base/fd.h"
#include "base/strings.h"
#include "core/executor.h"
#include "core/run_env.h"
#include "core/summary.h"
#include "distribute/agent_start.h"
#include "distribute/file_input.h"
#include "distribute/held_agent.h"
#include "distribute/host_outcome.h"
#include "distribute/push/frame_stream.h"
#include "distribute/relay/relay_group.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "distribute/staging_run.h"
#include "distribute/sync/delta_stream.h"
#include "distribute/sync/sync_needs.h"
#include "distribute/sync/sync_plan.h"
#include "distribute/wave.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

namespace asio = boost::asio;
using Reply = ReplySink::Reply;
using Indices = std::vector<std::size_t>;

// Times a file sent whole is read again, as it is then, when it changed while it was read (or
// since the scan: a delta of it failed so). Then it fails, named, and no host keeps it.
constexpr int kRereads = 2;

// Bytes in an unnamed memory file, to be read as a host's stdin.
Fd memory_file(const std::string& bytes) {
  Fd fd(::memfd_create("pdx-sync", MFD_CLOEXEC));
  if (!fd || !write_all(fd.get(), bytes.data(), bytes.size(), "memory file") ||
      ::lseek(fd.get(), 0, SEEK_SET) != 0)
    throw FatalError(std::string("cannot hold the file list: ") + std::strerror(errno));
  return fd;
}

// Why a host's reply could not be read: what a failed agent said, or what is wrong with it.
std::string reply_error(const Reply& reply, const std::string& malformed) {
  if (reply.result.exit_status != 0) return "agent failed: " + host_said(reply);
  if (reply.overflow) return "the agent's reply is over its limit";
  return "malformed reply from the agent: " + malformed;
}

// The hosts of `which` for which `key_of(i)` gives something (not nullptr), grouped by equal
// values, in the order first seen: the hosts that can share one stream.
template <class Key, class KeyOf>
std::vector<std::pair<const Key*, Indices>> equal_groups(const Indices& which, KeyOf key_of) {
  std::vector<std::pair<const Key*, Indices>> groups;
  for (std::size_t i : which) {
    const Key* key = key_of(i);
    if (!key) continue;
    auto same =
        std::find_if(groups.begin(), groups.end(), [&](auto& g) { return *g.first == *key; });
    if (same == groups.end()) same = groups.insert(groups.end(), {key, {}});
    same->second.push_back(i);
  }
  return groups;
}

// What every host's task of one sync shares. Each host's SyncedHost is written by its own task
// only, or by its wave's end once every task of the wave is over.
struct SyncRun : StagingRun {
  const SyncOptions& options;
  const PushSources& sources;
  const ExcludeRules& excludes;
  const std::vector<SignatureRequest>& asked;
  int requests;  // the asked frames, a memory file each host reads at its own offset
  // As typed: `first` answers the requests, then with --delete lists DEST's tops, and may stay
  // for one of the steps after (HeldAgent); each of the others takes one step.
  std::string first, patch, relay_patch, receive, relay, remove;
  SyncReport& report;
};

// Hosts of a wave that take one stream at a meeting (distribute/wave.h): the deltas against
// their equal old files (meeting 0), or the same files whole (meeting 1).
struct Group {
  std::vector<std::size_t> members;     // positions in the wave; reader j is members[j]
  std::unique_ptr<DeltaStream> deltas;  // meeting 0's stream, or
  std::unique_ptr<FrameStream> whole;   // meeting 1's
  std::unique_ptr<RelayGroup> relay;    // --relay, two hosts or more: host to host
  std::uint64_t bytes = 0;              // about how many the stream holds, at most
  std::unique_ptr<Broadcast> source;    // else from here; last: destroyed before what it reads

  int input() const { return deltas ? deltas->input() : whole->input(); }
  std::vector<std::string> errors() const { return deltas ? deltas->errors() : whole->errors(); }
  // Reader j's host ended: neither the stream nor the relay waits for it.
  void leave(std::size_t j) {
    if (source) source->finish(j);
    if (relay) relay->ended(j);
  }
};

// A broadcast of `input` to `readers` hosts, all running; `streams` broadcasts share the
// memory of one window.
std::unique_ptr<Broadcast> broadcast(int input, std::size_t readers, std::size_t streams) {
  Broadcast::Options options;
  options.window = std::max(options.window / streams, 4 * options.chunk);
  auto started = Broadcast::start(input, readers, options);
  if (!started) throw FatalError(started.error());
  return std::move(*started);
}

// A sync's wave: at most -f consecutive hosts, run at once, that meet twice: once every host
// has its signatures (meeting 0: groups of equal deltas), and once every host has patched
// (meeting 1: groups of equal whole-file needs). Each wave makes its own streams.
//
//   host task:  signatures (and listing) -> needs -> meet 0 ... -> patch -> meet 1 ... -> whole
//               -> delete
struct SyncWave {
  SyncWave(SyncRun& run_, std::size_t first_, std::size_t size)
      : run(run_),
        first(first_),
        needs(size),
        wave(size, {[this](const Indices& arrived) { return seat_deltas(arrived); },
                    [this](const Indices& arrived) { return seat_whole(arrived); }}) {}

  std::vector<Group> seat_deltas(const Indices& arrived);
  std::vector<Group> seat_whole(const Indices& arrived);
  // Groups `arrived` by equal keys (nullptr: nothing to take), `start` making each one's
  // stream; each sent from here, or with --relay host to host. Never throws: what cannot start
  // is the run's fatal error, and nobody is seated.
  template <class Key, class KeyOf, class Start>
  std::vector<Group> seat(const Indices& arrived, KeyOf key_of, Start start);
  // The wave's last end: the streams freed (what reads them first), their errors and relays
  // called off said, each delta's bytes told to its hosts.
  void finish(std::vector<Group> done);

  SyncRun& run;
  std::size_t first;             // host index of position 0
  std::vector<HostNeeds> needs;  // by position: written by its host before each meeting
  Wave<Group> wave;              // last: its seatings read the above
};

template <class Key, class KeyOf, class Start>
std::vector<Group> SyncWave::seat(const Indices& arrived, KeyOf key_of, Start start) {
  return run.unless_fatal([&] {
    std::vector<Group> groups;
    for (auto& [key, members] : equal_groups<Key>(arrived, key_of)) {
      groups.emplace_back();
      groups.back().members = std::move(members);
      start(*key, groups.back());
    }
    for (auto& group : groups) {
      if (run.options.relay && group.members.size() > 1) {
        std::vector<std::string> labels;
        for (std::size_t k : group.members) labels.push_back(run.hosts[first + k].label());
        group.relay = std::make_unique<RelayGroup>(std::move(labels), run.options.relay_options,
                                                   group.input(), group.bytes);
      } else {
        group.source = broadcast(group.input(), group.members.size(), groups.size());
      }
    }
    return groups;
  });
}

std::vector<Group> SyncWave::seat_deltas(const Indices& arrived) {
  return seat<HostDeltas>(
      arrived,
      [&](std::size_t k) -> const HostDeltas* {
        return needs[k].deltas.files.empty() ? nullptr : &needs[k].deltas;
      },
      [&](const HostDeltas& deltas, Group& group) {
        std::vector<DeltaJob> jobs;
        const Layout& layout = deltas.as ? *run.sources.as : run.sources.into;
        for (const auto& [i, signature] : deltas.files) {
          jobs.push_back({&layout.files[i], &signature});
          group.bytes += layout.files[i].size + kEntryFrameBytes + layout.files[i].name.size();
        }
        auto stream = DeltaStream::start(std::move(jobs));
        if (!stream) throw FatalError(stream.error());
        group.deltas = std::move(*stream);
      });
}

std::vector<Group> SyncWave::seat_whole(const Indices& arrived) {
  return seat<HostPushPlan>(
      arrived,
      [&](std::size_t k) -> const HostPushPlan* {
        return needs[k].whole.empty() ? nullptr : &needs[k].whole;
      },
      [&](const HostPushPlan& plan, Group& group) {
        auto stream = FrameStream::files(layout_of(run.sources, plan), plan, kRereads);
        if (!stream) throw FatalError(stream.error());
        group.whole = std::move(*stream);
        group.bytes = stream_size(run.sources, plan);
      });
}

void SyncWave::finish(std::vector<Group> done) {
  for (auto& group : done) {
    group.source.reset();
    if (!group.relay) continue;
    run.note_relay(*group.relay);
    group.relay.reset();
  }
  for (auto& group : done) {
    run.note_local(group.errors());
    if (group.deltas)
      for (std::size_t k : group.members)
        run.report.hosts[first + k].delta_bytes = group.deltas->bytes();
  }
}

// Whether a host is out of the sync: a transport failure, or an error of its own recorded.
bool gone(const HostResult& ran, const SyncedHost& host) {
  return ran.failure != Failure::none || !host.error.empty();
}

// `command` on the host, its stdin the asked frames from the start; its `replies`, each of at most
// ReplySink::kMaxReply.
asio::awaitable<Reply> run_asking(const SyncRun& run, Session& session, const Job& job,
                                  const std::string& command, int replies, StopSignal& stop) {
  FileInput input(run.requests);
  Reply reply = co_await run_command(session, job, command, &input, stop,
                                     static_cast<std::size_t>(replies) * ReplySink::kMaxReply);
  co_return reply;
}

// With --delete: the host's extras under DEST, from its listing of the sources' tops (read and
// dropped: only the extras are kept). False, the host's error recorded, if it is malformed.
bool take_extras(SyncRun& run, const Reply& reply, std::string_view listed, SyncedHost& host,
                 HostNeeds& needs) {
  auto listing = parse_listing(listed);
  if (!listing) {
    host.error = reply_error(reply, listing.error());
    return false;
  }
  needs.extras = deletions(run.sources, *listing, run.excludes);
  if (run.options.dry_run)
    for (const auto& e : needs.extras)
      host.to_delete.push_back(e.kind == EntryKind::directory ? e.name + "/" : e.name);
  return true;
}

// Step 1, deploying the agent where it is missing: how each asked file stands on the host, and
// with --delete its extras, into its needs. Where held_agent_for() it, the agent stays in `held`
// for the next step the host takes.
asio::awaitable<HostResult> first_step(SyncRun& run, Session& session, const Job& job,
                                       std::optional<HeldAgent>& held,
                                       std::optional<HostNeeds>& needs, StopSignal& stop) {
  SyncedHost& host = run.report.hosts[job.index];
  const std::string command = run.command_for(job.index, run.first);
  const bool hold = held_agent_for(job);
  const int replies = run.options.delete_extras ? 2 : 1;
  AgentStarted started = co_await run.start_agent(
      session, job,
      [&]() {
        if (!hold) return run_asking(run, session, job, command, replies, stop);
        // A run before it (an upload asked) has ended.
        held.emplace(session, job, command, stop, std::make_unique<FileInput>(run.requests),
                     replies);
        return held->listed();
      },
      stop);
  Reply& reply = started.reply;
  if (reply.result.failure != Failure::none) co_return reply.result;
  if (started.cannot_run)
    started.error = "the agent cannot run there (" + *started.cannot_run + ")";
  if (!started.error.empty()) {
    host.error = std::move(started.error);
    co_return HostResult{};
  }
  std::string_view signatures = reply.out, listed;
  if (replies == 2) {
    auto size = first_reply_size(reply.out);
    if (!size) {
      host.error = reply_error(reply, size.error());
      co_return HostResult{};
    }
    listed = signatures.substr(*size);
    signatures = signatures.substr(0, *size);
  }
  auto old = parse_signatures(signatures, run.asked);
  if (!old) {
    host.error = reply_error(reply, old.error());
    co_return HostResult{};
  }
  HostNeeds got = needs_of(run.sources, *old, run.options.dry_run, host);
  if (replies == 2 && !take_extras(run, reply, listed, host, got)) co_return HostResult{};
  needs = std::move(got);
  co_return HostResult{};
}

// What a host takes at one meeting of its wave (distribute/wave.h): the agent's commands that
// receive its group's stream, from here (`star`) or host to host (`relay`), and the bytes that
// tell an agent that stayed to take them instead, the count its receipt goes to, and what becomes
// of the files that failed.
struct Take {
  enum class Failures { go_whole, stay };  // go whole at the next meeting, or fail the host's files
  std::size_t meeting;
  std::string SyncRun::*star;
  std::string SyncRun::*relay;
  HeldAgent::Steps held;
  Summary SyncedHost::*counted;
  Failures failures;
};
// Step 2: the deltas; a file that failed to patch is added to what the host gets whole.
constexpr Take kPatch{0,
                      &SyncRun::patch,
                      &SyncRun::relay_patch,
                      HeldAgent::kPatch,
                      &SyncedHost::patched,
                      Take::Failures::go_whole};
// Step 3: what the host still lacks, whole.
constexpr Take kWhole{1,
                      &SyncRun::receive,
                      &SyncRun::relay,
                      HeldAgent::kReceive,
                      &SyncedHost::written,
                      Take::Failures::stay};

// The commands that take one stream on a host: from here (`star`) or host to host (`relay`),
// or the agent that stayed (`held`, if it waits).
struct Takers {
  const std::string& star;
  const std::string& relay;
  HeldAgent* held;
};

// Reader `reader` of a group's `source`, a stream of at most `bytes`, through its star
// (star_receive: a direct link, or ssh).
asio::awaitable<RelayGroup::Ran> star_take(SyncRun& run, Broadcast& source, std::uint64_t bytes,
                                           std::size_t reader, Session& session, const Job& job,
                                           Takers takers, StopSignal& stop) {
  RelayGroup::Ran got;
  got.reply = co_await star_receive(run, run.options.data_via, run.options.relay_options, session,
                                    job, source, reader, bytes, takers.star, takers.relay,
                                    takers.held, got.error, stop);
  co_return got;
}

// The stream of the host's group host to host, or once the relay is called off through its star
// after all.
asio::awaitable<RelayGroup::Ran> relay_take(SyncRun& run, RelayGroup& group, std::size_t reader,
                                            Session& session, const Job& job, Takers takers,
                                            StopSignal& stop) {
  std::optional<RelayGroup::Ran> relayed = co_await group.relayed(
      session, job, reader, takers.relay, run.options.data_via, takers.held, stop);
  if (relayed) co_return std::move(*relayed);
  auto source = group.star_source();
  if (!source) {
    RelayGroup::Ran failed;
    failed.error = source.error();
    co_return failed;
  }
  co_return co_await star_take(run, **source, group.bytes(), reader, session, job, takers, stop);
}

// The stream of the host's group, host to host or through its star: not a coroutine, so that
// take_step awaits one thing (GCC 12 warns falsely, mismatched-new-delete, on a coroutine with
// more branches that await).
asio::awaitable<RelayGroup::Ran> take_stream(SyncRun& run, Group& group, std::size_t reader,
                                             Session& session, const Job& job, Takers takers,
                                             StopSignal& stop) {
  if (group.relay) return relay_take(run, *group.relay, reader, session, job, takers, stop);
  return star_take(run, *group.source, group.bytes, reader, session, job, takers, stop);
}

// Steps 2 and 3: the stream of the host's group at `take`'s meeting into its agent, and its
// receipt; nothing when the host has no group there. Through the agent that stayed (`held`) if
// it still waits. A transport failure is returned; an error of the host's own is recorded.
asio::awaitable<HostResult> take_step(SyncRun& run, SyncWave& wave, const Take& take, std::size_t k,
                                      Session& session, const Job& job, HeldAgent* held,
                                      StopSignal& stop) {
  Wave<Group>::Seat seat = wave.wave.seat(take.meeting, k);
  if (!seat.group) co_return HostResult{};
  SyncedHost& host = run.report.hosts[job.index];
  const std::string star = run.command_for(job.index, run.*take.star);
  const std::string relay = run.command_for(job.index, run.*take.relay);
  if (held) held->take_as(take.held);
  RelayGroup::Ran got =
      co_await take_stream(run, *seat.group, seat.reader, session, job, {star, relay, held}, stop);
  if (!got.forwarded.empty()) run.note_forwarded(job.index, std::move(got.forwarded));
  if (!got.over_ssh.empty()) run.note_over_ssh(job.index, std::move(got.over_ssh));
  if (got.reply.result.failure != Failure::none) co_return got.reply.result;
  if (!got.error.empty()) {
    host.error = std::move(got.error);
    co_return HostResult{};
  }
  std::vector<Failed> failed;
  host.*take.counted = take_receipt(got.reply, host.error, failed);
  if (take.failures == Take::Failures::go_whole)
    resend_failed(run.sources, run.command_for(job.index, run.options.dest), failed, wave.needs[k],
                  host);
  else
    host.failed.insert(host.failed.end(), failed.begin(), failed.end());
  co_return HostResult{};
}

// Step 4, --delete, on a host where all went well: its extras, removed by its agent (the one that
// stayed, `held`, if it still waits). Nothing is deleted when a source it was sent could not be
// read here (as rsync: an I/O error disables deletions).
asio::awaitable<HostResult> delete_step(SyncRun& run, SyncWave& wave, std::size_t k,
                                        Session& session, const Job& job, HeldAgent* held,
                                        StopSignal& stop) {
  SyncedHost& host = run.report.hosts[job.index];
  const std::vector<Entry>& extras = wave.needs[k].extras;
  if (extras.empty() || !sync_complete(host)) co_return HostResult{};
  for (std::size_t m = 0; m < 2; ++m)
    if (Group* group = wave.wave.seat(m, k).group; group && !group->errors().empty()) {
      run.note_local({"nothing deleted on the hosts: a source could not be read here"});
      co_return HostResult{};
    }
  std::string frames;
  for (const auto& e : extras) frames += encode_frame(FrameType::entry, encode(e));
  frames += encode_frame(FrameType::done, "");
  Fd list = memory_file(frames);
  FileInput input(list.get());
  Reply reply;
  if (held && held->waiting()) {
    held->take_as(HeldAgent::kDelete);
    reply = co_await held->receive(input);
  } else {
    const std::string command = run.command_for(job.index, run.remove);
    reply = co_await run_command(session, job, command, &input, stop);
  }
  if (reply.result.failure != Failure::none) co_return reply.result;
  host.deleted = take_receipt(reply, host.error, host.failed).files;
  co_return HostResult{};
}

// A host's sync but for the end of the agent that stayed (`held`).
asio::awaitable<HostResult> sync_steps(SyncWave& wave, std::size_t k, Session& session,
                                       const Job& job, std::optional<HeldAgent>& held,
                                       StopSignal& stop) {
  SyncRun& run = wave.run;
  SyncedHost& host = run.report.hosts[job.index];
  std::optional<HostNeeds> needs;
  HostResult ran = co_await first_step(run, session, job, held, needs, stop);
  if (!needs || run.options.dry_run) co_return ran;
  wave.needs[k] = std::move(*needs);
  HeldAgent* stays = held ? &*held : nullptr;
  // Ctrl-C may end a wait and complete the meeting (the last host ending) at once: either way
  // no stream is taken.
  if (!co_await wave.wave.meet(0, k, stop) || stop.stopped()) co_return interrupted();
  ran = co_await take_step(run, wave, kPatch, k, session, job, stays, stop);
  if (gone(ran, host)) co_return ran;
  if (!co_await wave.wave.meet(1, k, stop) || stop.stopped()) co_return interrupted();
  ran = co_await take_step(run, wave, kWhole, k, session, job, stays, stop);
  if (gone(ran, host) || !run.options.delete_extras) co_return ran;
  co_return co_await delete_step(run, wave, k, session, job, stays, stop);
}

// A host's whole sync, on its one session: the agent that stayed (if any) ended before the
// session is given back, whatever happened.
asio::awaitable<HostResult> sync_host(SyncWave& wave, std::size_t k, Session& session,
                                      const Job& job, StopSignal& stop) {
  std::optional<HeldAgent> held;
  std::exception_ptr thrown;
  HostResult result;
  try {
    result = co_await sync_steps(wave, k, session, job, held, stop);
  } catch (...) {
    thrown = std::current_exception();
  }
  if (held) co_await held->release();
  if (thrown) std::rethrow_exception(thrown);
  co_return result;
}

}  // namespace

SyncReport sync(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options) {
  auto excludes = ExcludeRules::parse(options.excludes);
  if (!excludes) throw UsageError(excludes.error());
  auto scanned =
      scan_sources(options.sources, options.dest, options.safe_links ? Links::safe : Links::all);
  if (!scanned) throw UsageError(scanned.error());
  PushSources& sources = *scanned;
  exclude_sources(sources, *excludes);
  PreparedAgent agent = prepare_agent(options.agent, false);

  SyncReport report;
  report.dry_run = options.dry_run;
  report.warnings = source_warnings(sources);
  report.local = sources.unread;
  report.hosts.resize(hosts.size());
  std::vector<SignatureRequest> asked = signature_requests(sources, !options.dry_run);
  std::string frames;
  for (const auto& rq : asked) frames += encode_frame(FrameType::sig_request, encode(rq));
  frames += encode_frame(FrameType::done, "");
  Fd requests_file = memory_file(frames);
  auto command = [&](const char* mode) {
    return agent_command(agent.location, {mode + options.dest});
  };
  // Answers the requests, lists DEST's tops (--delete), and may stay for any step after.
  std::vector<std::string> first_args = {"--signatures=" + options.dest};
  if (options.delete_extras) {
    first_args.push_back("--list=" + options.dest);
    for (const auto& top : sources.tops) first_args.push_back("--under=" + top);
  }
  for (const char* step : {"--patch=", "--relay-patch=", "--receive=", "--relay="})
    first_args.push_back(step + options.dest);
  if (options.delete_extras) first_args.push_back("--delete=" + options.dest);
  SyncRun run{{hosts, tmpl, agent.location, agent.binary.get(), report.local},
              options,
              sources,
              *excludes,
              asked,
              requests_file.get(),
              agent_command(agent.location, first_args),
              command("--patch="),
              command("--relay-patch="),
              command("--receive="),
              command("--relay="),
              command("--delete="),
              report};
  std::size_t size = std::max<std::size_t>(options.fanout, 1);
  std::deque<SyncWave> waves = make_waves<SyncWave>(hosts.size(), size, run);
  WaveEnds<SyncWave> ends(waves, size);
  auto results = execute_waves(transport, make_jobs(hosts, tmpl), waves, size, ends, sync_host);
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (results[i].failure != Failure::none) report.hosts[i].result = results[i];
  run.rethrow_fatal();
  // What the run's warnings say (sync_text), on each host's report.
  report.called_off = run.called_off_text();
  if (std::string over = run.over_ssh_text(); !over.empty())
    report.called_off += (report.called_off.empty() ? "" : "\npdx: warning: ") + over;
  report.bridged_heads = std::move(run.bridged_heads);
  for (std::size_t i : run.replaced) report.hosts[i].agent_replaced = true;
  for (auto& [i, why] : run.statics) report.hosts[i].agent_static = std::move(why);
  for (auto& [i, said] : run.forwarded) {  // the patch's, the files'
    std::string& forwarded = report.hosts[i].forwarded;
    forwarded += (forwarded.empty() ? "" : "; ") + said;
  }
  return report;
}

}  // namespace pdx
