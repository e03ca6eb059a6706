#include "distribute/sync.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

#include "archive/size.h"
#include "archive/temp_file.h"
#include "base/error.h"
#include "base/fd.h"
#include "base/strings.h"
#include "core/executor.h"
#include "core/run_env.h"
#include "core/summary.h"
#include "distribute/agent_start.h"
#include "distribute/delta_protocol.h"
#include "distribute/delta_stream.h"
#include "distribute/file_input.h"
#include "distribute/frame_stream.h"
#include "distribute/host_outcome.h"
#include "distribute/relay_group.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "distribute/sync_needs.h"
#include "distribute/sync_plan.h"
#include "distribute/wave.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

namespace asio = boost::asio;
using Reply = ReplySink::Reply;
using Indices = std::vector<std::size_t>;

HostResult interrupted() {
  HostResult r;
  r.failure = Failure::interrupted;
  r.error = "interrupted";
  return r;
}

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

// What a receiving, patching or deleting agent replied (distribute/reply_sink.h): its failures,
// into the host's outcome, and its summary.
Summary take_receipt(const Reply& reply, SyncedHost& host, std::vector<Failed>& failed) {
  Receipt receipt = read_receipt(reply);
  for (auto& f : receipt.failed) failed.push_back(std::move(f));
  if (!receipt.error.empty()) host.error = std::move(receipt.error);
  return receipt.summary;
}

bool complete(const SyncedHost& h) {
  return h.result.failure == Failure::none && h.error.empty() && h.failed.empty();
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
struct SyncRun {
  const std::vector<Host>& hosts;
  const JobTemplate& tmpl;
  const SyncOptions& options;
  const AgentLocation& agent;
  int binary;  // this pdx, read by each upload at its own offset (self-deploy only)
  const PushSources& sources;
  const ExcludeRules& excludes;
  const std::vector<SignatureRequest>& asked;
  int requests;  // the asked frames, a memory file each host reads at its own offset
  std::string signatures, list, patch, relay_patch, receive, relay, remove;  // as typed
  SyncReport& report;

  std::mutex mutex;                     // report.local, report.called_off and what follows
  std::exception_ptr fatal;             // a stream could not be made: sync() throws it
  std::vector<std::string> called_off;  // the hosts of every relay called off
  std::string called_off_reason;        // the first one's

  // `command` as host i runs it: %h %n substituted, over ssh too.
  std::string command_for(std::size_t i, const std::string& command) const {
    const Host& host = hosts[i];
    return substitute_exec(command, host, host.user.empty() ? tmpl.default_user : host.user, i);
  }
  void note_local(std::vector<std::string> errors);  // report.local, each error once
  void note_called_off(RelayGroup::CalledOff off);   // one line for the run
};

void SyncRun::note_local(std::vector<std::string> errors) {
  std::lock_guard lock(mutex);
  add_once(report.local, std::move(errors));
}

// The patch's and the whole files' meetings, and every wave, may call off a relay: one line.
void SyncRun::note_called_off(RelayGroup::CalledOff off) {
  std::lock_guard lock(mutex);
  if (called_off.empty()) called_off_reason = std::move(off.reason);
  called_off.insert(called_off.end(), off.hosts.begin(), off.hosts.end());
  report.called_off = called_off_line(called_off, called_off_reason);
}

// Hosts of a wave that take one stream at a meeting (distribute/wave.h): the deltas against
// their equal old files (meeting 0), or the same files whole (meeting 1).
struct Group {
  std::vector<std::size_t> members;     // positions in the wave; reader j is members[j]
  std::unique_ptr<DeltaStream> deltas;  // meeting 0's stream, or
  std::unique_ptr<Layout> fresh;        // meeting 1's files as they are then, which
  std::unique_ptr<FrameStream> whole;   // meeting 1's stream reads
  std::unique_ptr<RelayGroup> relay;    // --relay, two hosts or more: host to host
  std::unique_ptr<Broadcast> source;    // else from here; last: destroyed before what it reads

  int input() const { return deltas ? deltas->input() : whole->input(); }
  std::vector<std::string> errors() const { return deltas ? deltas->errors() : whole->errors(); }
  // Reader j's host ended: neither the stream nor the relay waits for it.
  void leave(std::size_t j) {
    if (source) source->finish(j);
    if (relay) relay->ended(j);
  }
};

// `layout` with the files of `plan` as they are now: one that changed since the scan (its delta
// failed: it changed while read) is read again as it is, once (a change while it is read fails
// it). One no longer a regular file stays as scanned, for the stream to say why it cannot go.
Layout restated(const Layout& layout, const HostPushPlan& plan) {
  Layout now = layout;
  for (std::size_t i : plan.files) {
    LocalFile& f = now.files[i];
    struct stat st;
    if (::lstat(f.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    f.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
    f.mtime_sec = st.st_mtim.tv_sec;
    f.mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
    f.size = static_cast<std::uint64_t>(st.st_size);
    f.allocated = static_cast<std::uint64_t>(st.st_blocks) * 512;
  }
  return now;
}

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
  {
    std::lock_guard lock(run.mutex);
    if (run.fatal) return {};  // sync() throws it once the run is over: nothing more is sent
  }
  try {
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
                                                   group.input());
      } else {
        group.source = broadcast(group.input(), group.members.size(), groups.size());
      }
    }
    return groups;
  } catch (...) {
    std::lock_guard lock(run.mutex);
    run.fatal = std::current_exception();
    return {};
  }
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
        for (const auto& [i, signature] : deltas.files)
          jobs.push_back({&layout.files[i], &signature});
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
        group.fresh = std::make_unique<Layout>(restated(layout_of(run.sources, plan), plan));
        auto stream = FrameStream::files(*group.fresh, plan);
        if (!stream) throw FatalError(stream.error());
        group.whole = std::move(*stream);
      });
}

void SyncWave::finish(std::vector<Group> done) {
  for (auto& group : done) {
    group.source.reset();
    if (!group.relay) continue;
    if (auto off = group.relay->called_off()) run.note_called_off(std::move(*off));
    if (auto line = group.relay->head_bridged()) {
      std::lock_guard lock(run.mutex);
      run.report.bridged_heads.push_back(std::move(*line));
    }
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

// `command` on the host, its stdin the asked frames from the start.
asio::awaitable<Reply> run_asking(const SyncRun& run, Session& session, const Job& job,
                                  const std::string& command, StopSignal& stop) {
  FileInput input(run.requests);
  Reply reply = co_await run_command(session, job, command, &input, stop);
  co_return reply;
}

// Step 1, deploying the agent where it is missing: how each asked file stands on the host,
// into its needs.
asio::awaitable<HostResult> signatures_step(SyncRun& run, Session& session, const Job& job,
                                            std::optional<HostNeeds>& needs, StopSignal& stop) {
  SyncedHost& host = run.report.hosts[job.index];
  const std::string command = run.command_for(job.index, run.signatures);
  AgentStarted started = co_await start_agent(
      session, job, run.agent, run.binary,
      [&]() { return run_asking(run, session, job, command, stop); }, stop);
  Reply& reply = started.reply;
  host.agent_replaced = started.replaced;
  host.agent_static = started.static_needed;
  if (reply.result.failure != Failure::none) co_return reply.result;
  if (started.cannot_run)
    started.error = "the agent cannot run there (" + *started.cannot_run + ")";
  if (!started.error.empty()) {
    host.error = std::move(started.error);
    co_return HostResult{};
  }
  auto old = parse_signatures(reply.out, run.asked);
  if (!old) {
    host.error = reply_error(reply, old.error());
    co_return HostResult{};
  }
  needs = needs_of(run.sources, *old, run.options.dry_run, host);
  co_return HostResult{};
}

// Step 1 with --delete: the host's extras under DEST, from its listing of the sources' tops
// (read and dropped: only the extras are kept).
asio::awaitable<HostResult> extras_step(SyncRun& run, Session& session, const Job& job,
                                        HostNeeds& needs, StopSignal& stop) {
  SyncedHost& host = run.report.hosts[job.index];
  const std::string command = run.command_for(job.index, run.list);
  Reply reply = co_await run_command(session, job, command, nullptr, stop);
  if (reply.result.failure != Failure::none) co_return reply.result;
  auto listing = parse_listing(reply.out);
  if (!listing) {
    host.error = reply_error(reply, listing.error());
    co_return HostResult{};
  }
  needs.extras = deletions(run.sources, *listing, run.excludes);
  if (run.options.dry_run)
    for (const auto& e : needs.extras)
      host.to_delete.push_back(e.kind == EntryKind::directory ? e.name + "/" : e.name);
  co_return HostResult{};
}

// The stream of the host's group at meeting `m` into its agent: `star` from here, or `relay`
// host to host; the agent's reply, or none when the host has no group there or is out (its
// failure in `ran`, or its error recorded).
asio::awaitable<std::optional<Reply>> stream_step(SyncRun& run, SyncWave& wave, std::size_t m,
                                                  std::size_t k, Session& session, const Job& job,
                                                  const std::string& star_command,
                                                  const std::string& relay_command, HostResult& ran,
                                                  StopSignal& stop) {
  Wave<Group>::Seat seat = wave.wave.seat(m, k);
  if (!seat.group) co_return std::nullopt;
  const std::string star = run.command_for(job.index, star_command);
  RelayGroup::Ran got;
  if (seat.group->relay) {
    const std::string relay = run.command_for(job.index, relay_command);
    got = co_await seat.group->relay->run(session, job, seat.reader, relay, star, stop);
    std::string& forwarded = run.report.hosts[job.index].forwarded;  // the patch's, the files'
    if (!got.forwarded.empty()) forwarded += (forwarded.empty() ? "" : "; ") + got.forwarded;
  } else {
    BroadcastInput input(*seat.group->source, seat.reader);
    got.reply = co_await run_command(session, job, star, &input, stop);
  }
  if (got.reply.result.failure != Failure::none) {
    ran = got.reply.result;
    co_return std::nullopt;
  }
  if (!got.error.empty()) {
    run.report.hosts[job.index].error = std::move(got.error);
    co_return std::nullopt;
  }
  co_return std::move(got.reply);
}

// Step 2: the host's group's deltas; a file that failed to patch is added to what the host
// gets whole.
asio::awaitable<HostResult> patch_step(SyncRun& run, SyncWave& wave, std::size_t k,
                                       Session& session, const Job& job, StopSignal& stop) {
  HostResult ran;
  auto reply =
      co_await stream_step(run, wave, 0, k, session, job, run.patch, run.relay_patch, ran, stop);
  if (!reply) co_return ran;
  SyncedHost& host = run.report.hosts[job.index];
  std::vector<Failed> failed;
  host.patched = take_receipt(*reply, host, failed);
  resend_failed(run.sources, run.command_for(job.index, run.options.dest), failed, wave.needs[k],
                host);
  co_return ran;
}

// Step 3: what the host still lacks, whole.
asio::awaitable<HostResult> whole_step(SyncRun& run, SyncWave& wave, std::size_t k,
                                       Session& session, const Job& job, StopSignal& stop) {
  HostResult ran;
  auto reply =
      co_await stream_step(run, wave, 1, k, session, job, run.receive, run.relay, ran, stop);
  if (!reply) co_return ran;
  SyncedHost& host = run.report.hosts[job.index];
  host.written = take_receipt(*reply, host, host.failed);
  co_return ran;
}

// Step 4, --delete, on a host where all went well: its extras, removed by its agent. Nothing is
// deleted when a source it was sent could not be read here (as rsync: an I/O error disables
// deletions).
asio::awaitable<HostResult> delete_step(SyncRun& run, SyncWave& wave, std::size_t k,
                                        Session& session, const Job& job, StopSignal& stop) {
  SyncedHost& host = run.report.hosts[job.index];
  const std::vector<Entry>& extras = wave.needs[k].extras;
  if (extras.empty() || !complete(host)) co_return HostResult{};
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
  const std::string command = run.command_for(job.index, run.remove);
  Reply reply = co_await run_command(session, job, command, &input, stop);
  if (reply.result.failure != Failure::none) co_return reply.result;
  host.deleted = take_receipt(reply, host, host.failed).files;
  co_return HostResult{};
}

// A host's whole sync, on its one session.
asio::awaitable<HostResult> sync_host(SyncWave& wave, std::size_t k, Session& session,
                                      const Job& job, StopSignal& stop) {
  SyncRun& run = wave.run;
  SyncedHost& host = run.report.hosts[job.index];
  std::optional<HostNeeds> needs;
  HostResult ran = co_await signatures_step(run, session, job, needs, stop);
  if (!needs) co_return ran;
  if (run.options.delete_extras) {
    ran = co_await extras_step(run, session, job, *needs, stop);
    if (gone(ran, host)) co_return ran;
  }
  if (run.options.dry_run) co_return ran;
  wave.needs[k] = std::move(*needs);
  // Ctrl-C may end a wait and complete the meeting (the last host ending) at once: either way
  // no stream is taken.
  if (!co_await wave.wave.meet(0, k, stop) || stop.stopped()) co_return interrupted();
  ran = co_await patch_step(run, wave, k, session, job, stop);
  if (gone(ran, host)) co_return ran;
  if (!co_await wave.wave.meet(1, k, stop) || stop.stopped()) co_return interrupted();
  ran = co_await whole_step(run, wave, k, session, job, stop);
  if (gone(ran, host) || !run.options.delete_extras) co_return ran;
  co_return co_await delete_step(run, wave, k, session, job, stop);
}

std::string files(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " file" : " files");
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
  auto agent = locate_agent(options.agent);
  if (!agent) throw FatalError(agent.error());
  Fd binary;
  if (agent->installed.empty()) {
    binary.reset(::open(agent->binary.c_str(), O_RDONLY | O_CLOEXEC));
    if (!binary) throw FatalError("cannot read this pdx binary to deploy it");
  }

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
  std::vector<std::string> list_args = {"--list=" + options.dest};
  for (const auto& top : sources.tops) list_args.push_back("--under=" + top);
  auto command = [&](const char* mode) { return agent_command(*agent, {mode + options.dest}); };
  SyncRun run{hosts,
              tmpl,
              options,
              *agent,
              binary.get(),
              sources,
              *excludes,
              asked,
              requests_file.get(),
              command("--signatures="),
              agent_command(*agent, list_args),
              command("--patch="),
              command("--relay-patch="),
              command("--receive="),
              command("--relay="),
              command("--delete="),
              report,
              {},
              {},
              {},
              {}};
  std::size_t size = std::max<std::size_t>(options.fanout, 1);
  std::deque<SyncWave> waves = make_waves<SyncWave>(hosts.size(), size, run);
  WaveEnds<SyncWave> ends(waves, size);
  auto results = execute_waves(transport, make_jobs(hosts, tmpl), waves, size, ends, sync_host);
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (results[i].failure != Failure::none) report.hosts[i].result = results[i];
  if (run.fatal) std::rethrow_exception(run.fatal);
  return report;
}

PushText sync_text(const std::vector<std::string>& labels, const SyncReport& report) {
  std::vector<std::string> out_labels, outs, err_labels, errs;
  auto say = [](std::vector<std::string>& to_labels, std::vector<std::string>& to,
                const std::string& label, std::string what) {
    to_labels.push_back(label);
    to.push_back(std::move(what));
  };
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const SyncedHost& h = report.hosts[i];
    if (h.result.failure != Failure::none) say(err_labels, errs, labels[i], describe(h.result));
    if (!h.error.empty()) say(err_labels, errs, labels[i], h.error);
    for (const auto& f : h.failed) say(err_labels, errs, labels[i], f.reason + " (" + f.path + ")");
    if (report.dry_run) {
      auto would = [&](const char* verb, const std::vector<std::string>& names) {
        for (const auto& n : names)
          say(out_labels, outs, labels[i], verb + (n.empty() ? std::string("DEST") : n));
      };
      would("would patch ", h.to_patch);
      would("would send ", h.to_send);
      would("would delete ", h.to_delete);
      if (complete(h) && h.to_patch.empty() && h.to_send.empty() && h.to_delete.empty())
        say(out_labels, outs, labels[i], "up to date");
      continue;
    }
    if (!complete(h)) continue;
    std::vector<std::string> parts;
    if (h.patched.files)
      parts.push_back(files(h.patched.files) + " patched (" + human_size(h.patched.bytes) + ", " +
                      human_size(h.delta_bytes) + " sent)");
    if (h.written.files)
      parts.push_back(files(h.written.files) + " sent whole (" + human_size(h.written.bytes) + ")");
    if (h.deleted) parts.push_back(std::to_string(h.deleted) + " deleted");
    // A source that could not be read here (or changed while read) was sent to no host.
    const char* none = report.local.empty() ? "up to date" : "nothing sent";
    say(out_labels, outs, labels[i], parts.empty() ? none : join(parts, ", "));
  }
  PushText text{folded_lines(out_labels, outs), folded_lines(err_labels, errs)};
  text.err += report.warnings;
  if (!report.called_off.empty()) text.err += "pdx: warning: " + report.called_off + "\n";
  for (const auto& line : report.bridged_heads) text.err += "pdx: warning: " + line + "\n";
  std::vector<std::string> replaced;
  for (std::size_t i = 0; i < report.hosts.size(); ++i)
    if (report.hosts[i].agent_replaced) replaced.push_back(labels[i]);
  text.err += agent_replaced_warning(replaced);
  std::vector<std::pair<std::string, std::string>> statics;
  for (std::size_t i = 0; i < report.hosts.size(); ++i)
    if (report.hosts[i].agent_static)
      statics.emplace_back(labels[i], *report.hosts[i].agent_static);
  text.err += agent_static_warning(statics);
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {  // a failed host's own line says it
    const SyncedHost& h = report.hosts[i];
    if (!h.forwarded.empty() && h.result.failure == Failure::none && h.error.empty())
      text.err += "pdx: warning: " + labels[i] + ": " + h.forwarded + "\n";
  }
  for (const auto& e : report.local) text.err += "pdx: error: " + e + "\n";
  return text;
}

int sync_exit_status(const SyncReport& report) {
  int status = report.local.empty() ? kExitOk : kExitFailure;
  for (const auto& h : report.hosts) {
    if (h.result.failure != Failure::none)
      status = std::max(status, exit_status_of(h.result));
    else if (!complete(h))
      status = std::max(status, int(kExitFailure));
  }
  return status;
}

}  // namespace pdx
