#include "distribute/sync.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include "archive/size.h"
#include "archive/temp_file.h"
#include "base/error.h"
#include "base/fd.h"
#include "core/executor.h"
#include "core/summary.h"
#include "distribute/delta_protocol.h"
#include "distribute/delta_stream.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

using Reply = ReplySink::Reply;
using Indices = std::vector<std::size_t>;

// Every job's reply of one execute(): a ReplySink per job, its result set when it finishes.
class PassReplies final : public OutputSink {
 public:
  explicit PassReplies(std::size_t jobs) : sinks_(jobs) {}
  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    sinks_[index].output(index, stream, bytes);
  }
  void finished(std::size_t index, const HostResult& result) override {
    sinks_[index].reply().result = result;
  }
  Reply& reply(std::size_t index) { return sinks_[index].reply(); }

 private:
  std::vector<ReplySink> sinks_;
};

// One pass: `command` on the hosts `which`, job k's stdin from `inputs[k]` (or none). A host
// that fails to run it (unreachable, interrupted) is recorded and left out of what is returned.
// (push.cpp's Passes does the same for push; to be shared once it is out of push.cpp.)
std::vector<std::pair<std::size_t, Reply>> run_pass(
    Transport& transport, const std::vector<Host>& hosts, JobTemplate tmpl, std::size_t fanout,
    const Indices& which, const std::string& command,
    const std::vector<std::shared_ptr<Broadcast>>& inputs, SyncReport& report) {
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
  PassReplies sink(jobs.size());
  execute(transport, jobs, sink, {fanout, 0});
  for (std::size_t k = 0; k < which.size(); ++k) {
    Reply& reply = sink.reply(k);
    if (reply.result.failure != Failure::none)
      report.hosts[which[k]].result = reply.result;
    else
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

// `whole`: something is to be sent as push does (a file missing or not a file there, a
// directory missing).
HostDeltas deltas_of(const PushSources& sources, std::vector<OldFile>& old, bool dry_run,
                     SyncedHost& host, bool& whole) {
  HostDeltas d;
  d.as = sources.as && old.back().state != OldState::directory;
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
      whole = true;
      if (dry_run) host.to_send.push_back(name);
    }
  }
  for (std::size_t k = 0; !d.as && k < layout.dirs.size(); ++k)
    if (old[layout.files.size() + k].state != OldState::directory) whole = true;
  return d;
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
      else if (reply.result.exit_status != 0)
        report.hosts[i].error = "agent failed: " + host_said(reply);
      else if (reply.overflow)
        report.hosts[i].error = "the agent's reply is over its limit";
      else
        report.hosts[i].error = "malformed reply from the agent: " + parsed.error();
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

// What a patching agent replied (distribute/reply_sink.h), into the host's outcome.
void take_receipt(const Reply& reply, SyncedHost& host) {
  Receipt receipt = read_receipt(reply);
  for (auto& f : receipt.failed) host.failed.push_back(std::move(f));
  host.patched = receipt.summary;
  if (!receipt.error.empty()) host.error = std::move(receipt.error);
}

struct Group {
  HostDeltas deltas;
  Indices hosts;
  std::unique_ptr<DeltaStream> stream;
};

// Passes 2 and 3: each group's delta, made once, to its hosts.
void patch(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
           const SyncOptions& options, const AgentLocation& agent, const PushSources& sources,
           std::vector<Group>& groups, SyncReport& report) {
  Indices receivers;
  std::vector<std::size_t> group_of;  // by position in receivers
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<DeltaJob> jobs;
    const Layout& layout = groups[g].deltas.as ? *sources.as : sources.into;
    for (const auto& [i, signature] : groups[g].deltas.files)
      jobs.push_back({&layout.files[i], &signature});
    auto stream = DeltaStream::start(std::move(jobs));
    if (!stream) throw FatalError(stream.error());
    groups[g].stream = std::move(*stream);
    for (std::size_t i : groups[g].hosts) {
      receivers.push_back(i);
      group_of.push_back(g);
    }
  }
  std::vector<std::shared_ptr<Broadcast>> sources_of;  // by group
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto b = broadcast(groups[g].stream->input(), receivers.size(), options.fanout, groups.size());
    for (std::size_t k = 0; k < receivers.size(); ++k)
      if (group_of[k] != g) b->finish(k);
    sources_of.push_back(std::move(b));
  }
  std::vector<std::shared_ptr<Broadcast>> inputs;
  for (std::size_t k = 0; k < receivers.size(); ++k) inputs.push_back(sources_of[group_of[k]]);
  auto replies = run_pass(transport, hosts, tmpl, options.fanout, receivers,
                          agent_command(agent, {"--patch=" + options.dest}), inputs, report);
  inputs.clear();
  sources_of.clear();  // before the streams they read
  for (auto& [i, reply] : replies) take_receipt(reply, report.hosts[i]);
  for (auto& group : groups) {
    for (std::size_t i : group.hosts) report.hosts[i].delta_bytes = group.stream->bytes();
    for (auto& e : group.stream->errors()) report.local.push_back(std::move(e));
  }
}

bool complete(const SyncedHost& h) {
  return h.result.failure == Failure::none && h.error.empty() && h.failed.empty();
}

bool complete(const PushedHost& o) {
  return o.result.failure == Failure::none && o.error.empty() && o.failed.empty();
}

bool interrupted(const SyncReport& report) {
  return std::any_of(report.hosts.begin(), report.hosts.end(),
                     [](auto& h) { return h.result.failure == Failure::interrupted; });
}

std::string files(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " file" : " files");
}

// Pass 4 on the hosts still in the sync (all of them when DEST names a host's rank: %n must
// stay its rank), its report by host index.
PushReport push_whole(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                      const PushOptions& options, const SyncReport& report) {
  Indices still;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (report.hosts[i].result.failure == Failure::none && report.hosts[i].error.empty())
      still.push_back(i);
  if (still.size() == hosts.size() || options.dest.find("%n") != std::string::npos)
    return push(transport, hosts, tmpl, options);
  std::vector<Host> some;
  for (std::size_t i : still) some.push_back(hosts[i]);
  PushReport part = push(transport, some, tmpl, options);
  PushReport all;
  all.hosts.resize(hosts.size());
  for (std::size_t k = 0; k < still.size(); ++k) all.hosts[still[k]] = std::move(part.hosts[k]);
  all.local = std::move(part.local);
  return all;
}

}  // namespace

SyncReport sync(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const SyncOptions& options) {
  auto scanned = scan_sources(options.sources, options.dest);
  if (!scanned) throw UsageError(scanned.error());
  const PushSources& sources = *scanned;
  auto agent = locate_agent(options.agent);
  if (!agent) throw FatalError(agent.error());

  SyncReport report;
  report.dry_run = options.dry_run;
  report.hosts.resize(hosts.size());
  std::vector<SignatureRequest> asked = requests(sources, !options.dry_run);
  std::vector<Group> groups;
  bool whole_needed = false;
  for (auto& [i, old] : signatures(transport, hosts, tmpl, options, *agent, asked, report)) {
    HostDeltas d = deltas_of(sources, old, options.dry_run, report.hosts[i], whole_needed);
    if (d.files.empty()) continue;
    auto same = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.deltas == d; });
    if (same == groups.end()) same = groups.insert(groups.end(), Group{std::move(d), {}, nullptr});
    same->hosts.push_back(i);
  }
  if (options.dry_run || interrupted(report)) return report;
  if (!groups.empty()) patch(transport, hosts, tmpl, options, *agent, sources, groups, report);
  if (interrupted(report)) return report;

  whole_needed = whole_needed || std::any_of(report.hosts.begin(), report.hosts.end(),
                                             [](auto& h) { return !h.failed.empty(); });
  report.whole.hosts.resize(hosts.size());
  if (!whole_needed) return report;  // no pass 4: every host is complete or failed already
  PushOptions whole;
  whole.sources = options.sources;
  whole.dest = options.dest;
  whole.agent = agent->installed;
  whole.fanout = options.fanout;
  report.whole = push_whole(transport, hosts, tmpl, whole, report);
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    SyncedHost& h = report.hosts[i];
    // A file that failed as a delta was sent whole: the push says how that went.
    if (h.error.empty() && complete(report.whole.hosts[i])) h.failed.clear();
  }
  return report;
}

PushText sync_text(const std::vector<std::string>& labels, const SyncReport& report) {
  std::vector<std::string> out_labels, outs, err_labels, errs;
  auto fail = [&](std::size_t i, std::string what) {
    err_labels.push_back(labels[i]);
    errs.push_back(std::move(what));
  };
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const SyncedHost& h = report.hosts[i];
    if (h.result.failure != Failure::none) fail(i, describe(h.result));
    if (!h.error.empty()) fail(i, h.error);
    for (const auto& f : h.failed) fail(i, f.reason + " (" + f.path + ")");
    if (report.dry_run) {
      for (const auto& n : h.to_patch) {
        out_labels.push_back(labels[i]);
        outs.push_back("would patch " + (n.empty() ? std::string("DEST") : n));
      }
      for (const auto& n : h.to_send) {
        out_labels.push_back(labels[i]);
        outs.push_back("would send " + (n.empty() ? std::string("DEST") : n));
      }
      if (complete(h) && h.to_patch.empty() && h.to_send.empty()) {
        out_labels.push_back(labels[i]);
        outs.push_back("up to date");
      }
      continue;
    }
    const PushedHost& w = report.whole.hosts[i];
    if (w.result.failure != Failure::none && w.result.failure != h.result.failure)
      fail(i, describe(w.result));
    if (!w.error.empty() && w.error != h.error) fail(i, w.error);
    for (const auto& f : w.failed) fail(i, f.reason + " (" + f.path + ")");
    if (!complete(h) || !complete(w)) continue;
    std::vector<std::string> parts;
    if (h.patched.files)
      parts.push_back(files(h.patched.files) + " patched (" + human_size(h.patched.bytes) + ", " +
                      human_size(h.delta_bytes) + " sent)");
    if (w.written.files)
      parts.push_back(files(w.written.files) + " sent whole (" + human_size(w.written.bytes) + ")");
    out_labels.push_back(labels[i]);
    outs.push_back(parts.empty()       ? "up to date"
                   : parts.size() == 1 ? parts[0]
                                       : parts[0] + ", " + parts[1]);
  }
  PushText text{folded_lines(out_labels, outs), folded_lines(err_labels, errs)};
  for (const auto& e : report.local) text.err += "pdx: error: " + e + "\n";
  for (const auto& e : report.whole.local) text.err += "pdx: error: " + e + "\n";
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
  if (!report.dry_run) status = std::max(status, push_exit_status(report.whole));
  return status;
}

}  // namespace pdx
