#include "distribute/sync.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "archive/size.h"
#include "archive/temp_file.h"
#include "base/error.h"
#include "base/fd.h"
#include "base/strings.h"
#include "core/executor.h"
#include "core/run_env.h"
#include "core/summary.h"
#include "distribute/delta_protocol.h"
#include "distribute/delta_stream.h"
#include "distribute/frame_stream.h"
#include "distribute/relay_group.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "distribute/sync_plan.h"
#include "transport/broadcast.h"

namespace pdx {

namespace fs = std::filesystem;

namespace {

using Reply = ReplySink::Reply;
using Indices = std::vector<std::size_t>;

// A host's reply handed over as the host finishes (from its strand: hosts run in parallel).
using TakeReply = std::function<void(std::size_t host, Reply& reply)>;

// Every job's reply of one execute(): a ReplySink per job, its result set when it finishes.
// With `take`, a reply that ran is handed to it then and its bytes dropped, so that at most the
// replies of the hosts running at once (-f) are held.
class PassReplies final : public OutputSink {
 public:
  PassReplies(std::size_t jobs, TakeReply take) : sinks_(jobs), take_(std::move(take)) {}
  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    sinks_[index].output(index, stream, bytes);
  }
  void finished(std::size_t index, const HostResult& result) override {
    Reply& reply = sinks_[index].reply();
    reply.result = result;
    if (!take_ || result.failure != Failure::none) return;
    take_(index, reply);
    std::string().swap(reply.out);
    std::string().swap(reply.err);
  }
  Reply& reply(std::size_t index) { return sinks_[index].reply(); }

 private:
  std::vector<ReplySink> sinks_;
  TakeReply take_;
};

// One pass: `command` on the hosts `which`, job k's stdin from `inputs[k]` (or none). A host
// that fails to run it (unreachable, interrupted) is recorded and left out of what is returned;
// with `take`, the others' replies go to it as they come, and none is returned.
// (Each pass opens a session per host again; push runs a host's steps as one task on one
// session, core/executor.h's execute_tasks with reply_sink's run_command, which sync is to
// share once push's wave is out of push.cpp.)
std::vector<std::pair<std::size_t, Reply>> run_pass(
    Transport& transport, const std::vector<Host>& hosts, JobTemplate tmpl, std::size_t fanout,
    const Indices& which, const std::string& command,
    const std::vector<std::shared_ptr<Broadcast>>& inputs, SyncReport& report,
    const TakeReply& take = {}) {
  std::vector<std::pair<std::size_t, Reply>> ran;
  if (which.empty()) return ran;
  tmpl.command = command;
  tmpl.substitute = true;                         // %h %n in DEST, over ssh too
  std::vector<Job> all = make_jobs(hosts, tmpl);  // for every host: %n is its rank
  std::vector<Job> jobs;
  for (std::size_t i : which) {
    jobs.push_back(std::move(all[i]));
    jobs.back().index = jobs.size() - 1;
    if (!inputs.empty()) jobs.back().stdin_source = inputs[jobs.size() - 1];
  }
  TakeReply by_host;
  if (take) by_host = [&](std::size_t k, Reply& reply) { take(which[k], reply); };
  PassReplies sink(jobs.size(), by_host);
  execute(transport, jobs, sink, {fanout, 0});
  for (std::size_t k = 0; k < which.size(); ++k) {
    Reply& reply = sink.reply(k);
    if (reply.result.failure != Failure::none)
      report.hosts[which[k]].result = reply.result;
    else if (!take)
      ran.emplace_back(which[k], std::move(reply));
  }
  return ran;
}

std::shared_ptr<Broadcast> broadcast(int input, std::size_t readers, std::size_t fanout,
                                     std::size_t streams) {
  Broadcast::Options options;
  options.spool = readers > fanout;
  options.window = std::max(options.window / streams, 4 * options.chunk);
  auto started = Broadcast::start(input, readers, options);
  if (!started) throw FatalError(started.error());
  return std::move(*started);
}

// Bytes in an unnamed memory file, to be broadcast.
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

// What every host is asked in pass 1: each file of the `into` layout, each directory (whether
// it is there), then, when the sources may land `as` DEST, DEST itself ("").
std::vector<SignatureRequest> requests(const PushSources& sources, bool want) {
  std::vector<SignatureRequest> asked;
  for (const auto& f : sources.into.files) asked.push_back({f.name, f.size, f.mtime_sec, want});
  for (const auto& d : sources.into.dirs) asked.push_back({d.name, 0, 0, false});
  if (sources.as) {
    const LocalFile& f = sources.as->files.front();
    asked.push_back({"", f.size, f.mtime_sec, want});
  }
  return asked;
}

// One host's changed files, by index into its layout, with their old signatures.
struct HostDeltas {
  bool as = false;
  std::vector<std::pair<std::size_t, Signature>> files;
  bool operator==(const HostDeltas&) const = default;
};

// What pass 1 found a host needs: its deltas, what is to go whole (missing, not a file there, a
// directory missing), with --delete its extras.
struct HostNeeds {
  HostDeltas deltas;
  HostPushPlan whole;
  std::vector<Entry> extras;
};

HostNeeds needs_of(const PushSources& sources, std::vector<OldFile>& old, bool dry_run,
                   SyncedHost& host) {
  HostNeeds needs;
  HostDeltas& d = needs.deltas;
  d.as = sources.as && old.back().state != OldState::directory;
  needs.whole.into = !d.as;
  const Layout& layout = d.as ? *sources.as : sources.into;
  for (std::size_t i = 0; i < layout.files.size(); ++i) {
    OldFile& f = d.as ? old.back() : old[i];
    const std::string& name = layout.files[i].name;
    if (f.state == OldState::changed) {
      if (dry_run)
        host.to_patch.push_back(name);
      else
        d.files.emplace_back(i, std::move(f.signature));
    } else if (f.state != OldState::same) {
      needs.whole.files.push_back(i);
      if (dry_run) host.to_send.push_back(name);
    }
  }
  for (std::size_t k = 0; !d.as && k < layout.dirs.size(); ++k)
    if (old[layout.files.size() + k].state != OldState::directory) needs.whole.dirs.push_back(k);
  return needs;
}

// The files of `needs` whose patch failed (DEST/NAME, or DEST itself for "as"), to go whole. A
// failure that names none of them (the reply is the host's) is the host's own: it stays failed.
void resend_failed(const PushSources& sources, const std::string& dest,
                   const std::vector<Failed>& failed, HostNeeds& needs, SyncedHost& host) {
  const Layout& layout = needs.deltas.as ? *sources.as : sources.into;
  std::unordered_map<std::string, std::size_t> by_path;
  for (const auto& [i, signature] : needs.deltas.files) {
    const std::string& name = layout.files[i].name;
    by_path.emplace(name.empty() ? dest : (fs::path(dest) / name).string(), i);
  }
  for (const auto& f : failed) {
    auto it = by_path.find(f.path);
    if (it == by_path.end()) {
      host.failed.push_back(f);
    } else if (std::find(needs.whole.files.begin(), needs.whole.files.end(), it->second) ==
               needs.whole.files.end()) {
      needs.whole.files.push_back(it->second);
    }
  }
  std::sort(needs.whole.files.begin(), needs.whole.files.end());
}

// Pass 1, deploying the agent where it is missing: each host's old files.
std::vector<std::pair<std::size_t, std::vector<OldFile>>> signatures(
    Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
    const SyncOptions& options, const AgentLocation& agent,
    const std::vector<SignatureRequest>& asked, SyncReport& report) {
  std::string frames;
  for (const auto& rq : asked) frames += encode_frame(FrameType::sig_request, encode(rq));
  frames += encode_frame(FrameType::done, "");
  Fd list = memory_file(frames);
  std::string command = agent_command(agent, {"--signatures=" + options.dest});
  std::vector<std::pair<std::size_t, std::vector<OldFile>>> found;

  auto pass = [&](const Indices& which, Indices* missing) {
    ::lseek(list.get(), 0, SEEK_SET);
    auto source = broadcast(list.get(), which.size(), options.fanout, 1);
    std::vector<std::shared_ptr<Broadcast>> inputs(which.size(), source);
    for (auto& [i, reply] :
         run_pass(transport, hosts, tmpl, options.fanout, which, command, inputs, report)) {
      if (missing && reply.result.exit_status == kAgentMissing && reply.out.empty()) {
        missing->push_back(i);
        continue;
      }
      auto parsed = parse_signatures(reply.out, asked);
      if (parsed)
        found.emplace_back(i, std::move(*parsed));
      else
        report.hosts[i].error = reply_error(reply, parsed.error());
    }
  };
  Indices all(hosts.size()), missing;
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  pass(all, agent.installed.empty() ? &missing : nullptr);
  if (missing.empty()) return found;

  Fd binary(::open(agent.binary.c_str(), O_RDONLY | O_CLOEXEC));
  if (!binary) throw FatalError("cannot read this pdx binary to deploy it");
  auto upload = broadcast(binary.get(), missing.size(), options.fanout, 1);
  Indices installed;
  for (auto& [i, reply] :
       run_pass(transport, hosts, tmpl, options.fanout, missing, upload_command(agent),
                std::vector<std::shared_ptr<Broadcast>>(missing.size(), upload), report)) {
    if (reply.result.exit_status == 0)
      installed.push_back(i);
    else
      report.hosts[i].error = "cannot install the agent: " + host_said(reply);
  }
  upload.reset();
  pass(installed, nullptr);
  return found;
}

// Pass 1 with --delete: each host's extras under DEST, from its listing of the sources' tops.
void extras(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
            const SyncOptions& options, const AgentLocation& agent, const PushSources& sources,
            const ExcludeRules& excludes, std::vector<std::optional<HostNeeds>>& needs,
            SyncReport& report) {
  Indices which;
  for (std::size_t i = 0; i < needs.size(); ++i)
    if (needs[i]) which.push_back(i);
  std::vector<std::string> args = {"--list=" + options.dest};
  for (const auto& top : sources.tops) args.push_back("--under=" + top);
  // Each listing read as its host finishes, and dropped: a host's own elements only.
  run_pass(transport, hosts, tmpl, options.fanout, which, agent_command(agent, args), {}, report,
           [&](std::size_t i, Reply& reply) {
             auto listing = parse_listing(reply.out);
             if (!listing) {
               report.hosts[i].error = reply_error(reply, listing.error());
               return;
             }
             needs[i]->extras = deletions(sources, *listing, excludes);
             if (options.dry_run)
               for (const auto& e : needs[i]->extras)
                 report.hosts[i].to_delete.push_back(e.kind == EntryKind::directory ? e.name + "/"
                                                                                    : e.name);
           });
}

// Runs `command` on the members of each group, a group's hosts reading its `input` (one
// Broadcast each over the pass's jobs: readers of other groups finish at once).
struct StreamGroup {
  int input;
  const Indices* hosts;
};
std::vector<std::pair<std::size_t, Reply>> group_pass(Transport& transport,
                                                      const std::vector<Host>& hosts,
                                                      const JobTemplate& tmpl, std::size_t fanout,
                                                      const std::vector<StreamGroup>& groups,
                                                      const std::string& command,
                                                      SyncReport& report) {
  Indices receivers;
  std::vector<std::size_t> group_of;  // by position in receivers
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i : *groups[g].hosts) {
      receivers.push_back(i);
      group_of.push_back(g);
    }
  std::vector<std::shared_ptr<Broadcast>> of_group;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto b = broadcast(groups[g].input, receivers.size(), fanout, groups.size());
    for (std::size_t k = 0; k < receivers.size(); ++k)
      if (group_of[k] != g) b->finish(k);
    of_group.push_back(std::move(b));
  }
  std::vector<std::shared_ptr<Broadcast>> inputs;
  for (std::size_t k = 0; k < receivers.size(); ++k) inputs.push_back(of_group[group_of[k]]);
  return run_pass(transport, hosts, tmpl, fanout, receivers, command, inputs, report);
}

// The agent's commands of a pass that streams to groups: `star` reads the group's stream on
// its stdin; with --relay, a group of two hosts or more runs `relay` instead, host to host.
struct StreamCommands {
  std::string star, relay;
};

// group_pass with --relay, over one wave (at most -f hosts, all running at once): a group of
// two hosts or more as a RelayGroup, a host alone from here. A relay that could not link up is
// sent from here, and said once in report.called_off.
std::vector<std::pair<std::size_t, Reply>> relay_pass(
    Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
    const SyncOptions& options, const std::vector<StreamGroup>& groups,
    const StreamCommands& commands, SyncReport& report) {
  struct Seat {
    std::size_t host, group, member;
  };
  std::vector<Seat> seats;  // by job
  std::vector<std::unique_ptr<RelayGroup>> relays(groups.size());
  std::vector<std::shared_ptr<Broadcast>> alone(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Indices& members = *groups[g].hosts;
    std::vector<std::string> labels;
    for (std::size_t j = 0; j < members.size(); ++j) {
      seats.push_back({members[j], g, j});
      labels.push_back(hosts[members[j]].label());
    }
    if (members.size() > 1)
      relays[g] =
          std::make_unique<RelayGroup>(std::move(labels), options.relay_options, groups[g].input);
    else
      alone[g] = broadcast(groups[g].input, 1, options.fanout, groups.size());
  }
  std::vector<Job> all = make_jobs(hosts, tmpl), jobs;
  for (const Seat& seat : seats) {
    jobs.push_back(std::move(all[seat.host]));
    jobs.back().index = jobs.size() - 1;
  }
  auto command_for = [&](const std::string& command, std::size_t i) {
    const Host& host = hosts[i];
    return substitute_exec(command, host, host.user.empty() ? tmpl.default_user : host.user, i);
  };
  std::vector<RelayGroup::Ran> ran(jobs.size());
  // Each member's end tells its group, so that a chain or broadcast never waits for it.
  class Ends final : public OutputSink {
   public:
    Ends(const std::vector<Seat>& seats, std::vector<std::unique_ptr<RelayGroup>>& relays)
        : seats_(seats), relays_(relays) {}
    void output(std::size_t, Stream, std::string_view) override {}
    void finished(std::size_t k, const HostResult&) override {
      if (auto& relay = relays_[seats_[k].group]) relay->ended(seats_[k].member);
    }

   private:
    const std::vector<Seat>& seats_;
    std::vector<std::unique_ptr<RelayGroup>>& relays_;
  } ends(seats, relays);
  auto results = execute_tasks(
      transport, jobs, ends, {jobs.size(), 0},
      [&](Session& session, const Job& job, JobIo&,
          StopSignal& stop) -> boost::asio::awaitable<HostResult> {
        const Seat& seat = seats[job.index];
        RelayGroup::Ran& mine = ran[job.index];
        const std::string star = command_for(commands.star, seat.host);
        if (auto& relay = relays[seat.group]) {
          mine = co_await relay->run(session, job, seat.member,
                                     command_for(commands.relay, seat.host), star, stop);
        } else {
          BroadcastInput input(*alone[seat.group], 0);
          mine.reply = co_await run_command(session, job, star, &input, stop);
        }
        co_return mine.reply.result;
      });
  std::vector<std::pair<std::size_t, Reply>> replies;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    SyncedHost& host = report.hosts[seats[k].host];
    if (results[k].failure != Failure::none)
      host.result = results[k];
    else if (!ran[k].error.empty())
      host.error = std::move(ran[k].error);
    else
      replies.emplace_back(seats[k].host, std::move(ran[k].reply));
  }
  for (auto& relay : relays) {
    auto line = relay ? relay->called_off() : std::nullopt;
    if (!line) continue;
    // Once per run for the same hosts: the whole-file pass may call off what the patch did.
    std::string hosts_of = line->substr(0, line->find(": the relay"));
    if (std::none_of(report.called_off.begin(), report.called_off.end(),
                     [&](auto& said) { return said.starts_with(hosts_of + ": "); }))
      report.called_off.push_back(std::move(*line));
  }
  std::sort(replies.begin(), replies.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return replies;
}

// A pass of group streams: over a star, or with --relay host to host (relay_pass).
std::vector<std::pair<std::size_t, Reply>> stream_pass(
    Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
    const SyncOptions& options, const std::vector<StreamGroup>& groups,
    const StreamCommands& commands, SyncReport& report) {
  if (options.relay) return relay_pass(transport, hosts, tmpl, options, groups, commands, report);
  return group_pass(transport, hosts, tmpl, options.fanout, groups, commands.star, report);
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

// The hosts that failed as a whole in a pass (unreachable, a malformed reply) take no further
// part in the sync.
void drop_failed(const SyncReport& report, std::vector<std::optional<HostNeeds>>& needs) {
  for (std::size_t i = 0; i < needs.size(); ++i)
    if (report.hosts[i].result.failure != Failure::none || !report.hosts[i].error.empty())
      needs[i].reset();
}

bool interrupted(const SyncReport& report) {
  return std::any_of(report.hosts.begin(), report.hosts.end(),
                     [](auto& h) { return h.result.failure == Failure::interrupted; });
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

// Every host, in one wave; with --relay in waves of -f hosts, so that each group's hosts (a
// chain) run at once; each wave makes its groups' streams again.
std::vector<Indices> waves(std::size_t hosts, const SyncOptions& options) {
  std::size_t size = options.relay ? std::max<std::size_t>(options.fanout, 1) : hosts;
  std::vector<Indices> all;
  for (std::size_t i = 0; i < hosts; ++i) {
    if (i % size == 0) all.emplace_back();
    all.back().push_back(i);
  }
  return all;
}

// Passes 2 and 3 for the hosts of `wave`: each group's delta, made once, to its hosts. A file
// that failed to patch is added to what the host gets whole.
void patch(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
           const SyncOptions& options, const AgentLocation& agent, const PushSources& sources,
           const Indices& wave, std::vector<std::optional<HostNeeds>>& needs, SyncReport& report) {
  struct Group {
    const HostDeltas* deltas;
    Indices hosts;
    std::unique_ptr<DeltaStream> stream;
  };
  std::vector<Group> groups;
  for (auto& [deltas, members] :
       equal_groups<HostDeltas>(wave, [&](std::size_t i) -> const HostDeltas* {
         return needs[i] && !needs[i]->deltas.files.empty() ? &needs[i]->deltas : nullptr;
       }))
    groups.push_back(Group{deltas, std::move(members), nullptr});
  if (groups.empty()) return;
  std::vector<StreamGroup> streams;
  for (auto& group : groups) {
    std::vector<DeltaJob> jobs;
    const Layout& layout = group.deltas->as ? *sources.as : sources.into;
    for (const auto& [i, signature] : group.deltas->files)
      jobs.push_back({&layout.files[i], &signature});
    auto stream = DeltaStream::start(std::move(jobs));
    if (!stream) throw FatalError(stream.error());
    group.stream = std::move(*stream);
    streams.push_back({group.stream->input(), &group.hosts});
  }
  StreamCommands commands{agent_command(agent, {"--patch=" + options.dest}),
                          agent_command(agent, {"--relay-patch=" + options.dest})};
  for (auto& [i, reply] : stream_pass(transport, hosts, tmpl, options, streams, commands, report)) {
    std::vector<Failed> failed;
    report.hosts[i].patched = take_receipt(reply, report.hosts[i], failed);
    resend_failed(sources, options.dest, failed, *needs[i], report.hosts[i]);
  }
  for (auto& group : groups) {
    for (std::size_t i : group.hosts) report.hosts[i].delta_bytes = group.stream->bytes();
    for (auto& e : group.stream->errors()) report.local.push_back(std::move(e));
  }
}

// Pass 4 for the hosts of `wave`: what each still lacks, whole; hosts with equal needs share
// one stream.
void send_whole(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options, const AgentLocation& agent, const PushSources& sources,
                const Indices& wave, std::vector<std::optional<HostNeeds>>& needs,
                SyncReport& report) {
  struct Group {
    const HostPushPlan* plan;
    Indices hosts;
    std::unique_ptr<FrameStream> stream;
  };
  std::vector<Group> groups;
  for (auto& [plan, members] :
       equal_groups<HostPushPlan>(wave, [&](std::size_t i) -> const HostPushPlan* {
         return needs[i] && !needs[i]->whole.empty() ? &needs[i]->whole : nullptr;
       }))
    groups.push_back(Group{plan, std::move(members), nullptr});
  if (groups.empty()) return;
  std::vector<StreamGroup> streams;
  for (auto& group : groups) {
    auto stream = FrameStream::files(layout_of(sources, *group.plan), *group.plan);
    if (!stream) throw FatalError(stream.error());
    group.stream = std::move(*stream);
    streams.push_back({group.stream->input(), &group.hosts});
  }
  StreamCommands commands{agent_command(agent, {"--receive=" + options.dest}),
                          agent_command(agent, {"--relay=" + options.dest})};
  for (auto& [i, reply] : stream_pass(transport, hosts, tmpl, options, streams, commands, report))
    report.hosts[i].written = take_receipt(reply, report.hosts[i], report.hosts[i].failed);
  for (auto& group : groups)
    for (auto& e : group.stream->errors())
      if (std::find(report.local.begin(), report.local.end(), e) == report.local.end())
        report.local.push_back(std::move(e));
}

// Pass 5, --delete: each complete host's extras, removed by its agent; hosts with equal extras
// share one list. Nothing is deleted when a source could not be read here (as rsync: an I/O
// error disables deletions).
void delete_extras(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                   const SyncOptions& options, const AgentLocation& agent,
                   const std::vector<std::optional<HostNeeds>>& needs, SyncReport& report) {
  std::vector<std::optional<std::string>> frames(needs.size());  // each host's entry frames
  for (std::size_t i = 0; i < needs.size(); ++i) {
    if (!needs[i] || needs[i]->extras.empty() || !complete(report.hosts[i])) continue;
    frames[i].emplace();
    for (const auto& e : needs[i]->extras) *frames[i] += encode_frame(FrameType::entry, encode(e));
    *frames[i] += encode_frame(FrameType::done, "");
  }
  Indices all(needs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto lists = equal_groups<std::string>(
      all, [&](std::size_t i) { return frames[i] ? &*frames[i] : nullptr; });
  if (lists.empty()) return;
  if (!report.local.empty()) {
    report.local.push_back("nothing deleted on the hosts: a source could not be read here");
    return;
  }
  std::vector<Fd> files;
  std::vector<StreamGroup> streams;
  for (const auto& [list, which] : lists) {
    files.push_back(memory_file(*list));
    streams.push_back({files.back().get(), &which});
  }
  for (auto& [i, reply] : group_pass(transport, hosts, tmpl, options.fanout, streams,
                                     agent_command(agent, {"--delete=" + options.dest}), report))
    report.hosts[i].deleted = take_receipt(reply, report.hosts[i], report.hosts[i].failed).files;
}

std::string files(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " file" : " files");
}

}  // namespace

SyncReport sync(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options) {
  auto excludes = ExcludeRules::parse(options.excludes);
  if (!excludes) throw UsageError(excludes.error());
  auto scanned = scan_sources(options.sources, options.dest);
  if (!scanned) throw UsageError(scanned.error());
  PushSources& sources = *scanned;
  exclude_sources(sources, *excludes);
  auto agent = locate_agent(options.agent);
  if (!agent) throw FatalError(agent.error());

  SyncReport report;
  report.dry_run = options.dry_run;
  report.skipped = sources.skipped;
  report.hosts.resize(hosts.size());
  std::vector<SignatureRequest> asked = requests(sources, !options.dry_run);
  std::vector<std::optional<HostNeeds>> needs(hosts.size());  // hosts still in the sync
  for (auto& [i, old] : signatures(transport, hosts, tmpl, options, *agent, asked, report))
    needs[i] = needs_of(sources, old, options.dry_run, report.hosts[i]);
  if (options.delete_extras && !interrupted(report))
    extras(transport, hosts, tmpl, options, *agent, sources, *excludes, needs, report);
  if (options.dry_run || interrupted(report)) return report;
  for (const Indices& wave : waves(hosts.size(), options)) {
    drop_failed(report, needs);
    patch(transport, hosts, tmpl, options, *agent, sources, wave, needs, report);
    if (interrupted(report)) return report;
    drop_failed(report, needs);
    send_whole(transport, hosts, tmpl, options, *agent, sources, wave, needs, report);
    if (interrupted(report)) return report;
  }
  delete_extras(transport, hosts, tmpl, options, *agent, needs, report);
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
    say(out_labels, outs, labels[i], parts.empty() ? "up to date" : join(parts, ", "));
  }
  PushText text{folded_lines(out_labels, outs), folded_lines(err_labels, errs)};
  for (const auto& s : report.skipped)
    text.err += "pdx: warning: " + s + ": not a file or directory, not sent\n";
  for (const auto& line : report.called_off) text.err += "pdx: warning: " + line + "\n";
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
