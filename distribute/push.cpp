#include "distribute/push.h"

#include <fcntl.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "archive/part_reader.h"
#include "base/error.h"
#include "base/fd.h"
#include "core/executor.h"
#include "distribute/frame_stream.h"
#include "distribute/host_outcome.h"
#include "distribute/manifest_check.h"
#include "distribute/posix_push.h"
#include "distribute/progress_meter.h"
#include "distribute/push_plan.h"
#include "distribute/relay_chain.h"
#include "distribute/remote_agent.h"
#include "distribute/reply_sink.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

using Reply = ReplySink::Reply;
using Indices = std::vector<std::size_t>;
// Job k's stdin (k: its position among the pass's hosts); null: none.
using InputFor = std::function<std::shared_ptr<Broadcast>(std::size_t)>;

// What a pass runs everywhere, and on which hosts.
class Passes {
 public:
  Passes(Transport& transport, const std::vector<Host>& hosts, JobTemplate tmpl, std::size_t fanout,
         PushReport& report)
      : transport_(transport),
        hosts_(hosts),
        tmpl_(std::move(tmpl)),
        fanout_(fanout),
        report_(report) {
    tmpl_.substitute = true;  // %h %n in DEST, over ssh too
  }

  std::string label(std::size_t i) const { return hosts_[i].label(); }

  // Runs `command` on `which`; a host that fails to run it (unreachable, interrupted) is
  // recorded and left out of what is returned: index -> reply of the hosts that ran it.
  std::vector<std::pair<std::size_t, Reply>> run(const Indices& which, const std::string& command,
                                                 const InputFor& input = {},
                                                 ProgressMeter* progress = nullptr) {
    std::vector<std::pair<std::size_t, Reply>> ran;
    if (which.empty() || interrupted_) return ran;
    std::vector<Job> jobs = jobs_for(which, command);
    for (std::size_t k = 0; k < jobs.size(); ++k)
      if (input) jobs[k].stdin_source = input(k);
    ReplySink sink(jobs.size());
    MeteredSink metered(sink, progress, MeteredSink::Count::hosts);
    execute(transport_, jobs, metered, {fanout_, 0});
    for (std::size_t k = 0; k < which.size(); ++k) {
      Reply& reply = sink.replies()[k];
      if (reply.result.failure == Failure::interrupted) interrupted_ = true;
      if (reply.result.failure != Failure::none)
        report_.hosts[which[k]].result = reply.result;
      else
        ran.emplace_back(which[k], std::move(reply));
    }
    return ran;
  }

  // `command` on `which`: made for every host, so that %n and PDX_RANK are the host's rank in
  // every pass, then numbered by their place in the pass (the sink's and stdin's index).
  std::vector<Job> jobs_for(const Indices& which, const std::string& command) const {
    JobTemplate tmpl = tmpl_;
    tmpl.command = command;
    std::vector<Job> all = make_jobs(hosts_, tmpl);
    std::vector<Job> jobs;
    for (std::size_t i : which) {
      jobs.push_back(std::move(all[i]));
      jobs.back().index = jobs.size() - 1;
    }
    return jobs;
  }

  Transport& transport() const { return transport_; }
  std::size_t fanout() const { return fanout_; }
  bool interrupted() const { return interrupted_; }

  // A broadcast of `input` to the `readers` jobs of a pass: spooled when they cannot all run
  // at once; readers not in `members` (by position) are finished at once. `streams` broadcasts
  // run at once: they share the memory of one window.
  std::shared_ptr<Broadcast> broadcast(int input, std::size_t readers,
                                       const std::vector<bool>& members, std::size_t streams = 1,
                                       ProgressMeter* progress = nullptr) const {
    Broadcast::Options options;
    if (progress)
      options.on_consume = [progress](std::size_t, std::size_t n) { progress->add_bytes(n); };
    options.spool = readers > fanout_;
    options.window = std::max(options.window / streams, 4 * options.chunk);
    auto started = Broadcast::start(input, readers, options);
    if (!started) throw FatalError(started.error());
    std::shared_ptr<Broadcast> b = std::move(*started);
    for (std::size_t k = 0; k < readers; ++k)
      if (!members[k]) b->finish(k);
    return b;
  }

 private:
  Transport& transport_;
  const std::vector<Host>& hosts_;
  JobTemplate tmpl_;
  std::size_t fanout_;
  PushReport& report_;
  bool interrupted_ = false;
};

using Reasons = std::vector<std::pair<std::size_t, std::string>>;  // host index, why

// Pass 1: every host's listing of DEST, deploying the agent where it is missing; hosts where it
// cannot run go to `posix`.
std::vector<std::pair<std::size_t, HostListing>> list_hosts(
    Passes& passes, const Indices& all, const AgentLocation& agent,
    const std::vector<std::string>& list_args, PushReport& report, Reasons& posix) {
  std::vector<std::pair<std::size_t, HostListing>> listed;
  std::string command = agent_command(agent, list_args);
  auto take = [&](std::vector<std::pair<std::size_t, Reply>> replies, Indices* missing) {
    for (auto& [i, reply] : replies) {
      if (auto why = agent_cannot_run(reply, !missing && agent.installed.empty())) {
        posix.emplace_back(i, std::move(*why));
        continue;
      }
      if (missing && reply.result.exit_status == kAgentMissing && reply.out.empty()) {
        missing->push_back(i);
        continue;
      }
      auto listing = parse_listing(reply.out);
      if (listing)
        listed.emplace_back(i, std::move(*listing));
      else if (reply.result.exit_status != 0)
        report.hosts[i].error = "agent failed: " + host_said(reply);
      else
        report.hosts[i].error = "malformed reply from the agent: " + listing.error();
    }
  };
  Indices missing;
  take(passes.run(all, command), agent.installed.empty() ? &missing : nullptr);
  if (missing.empty()) return listed;

  Fd binary(::open(agent.binary.c_str(), O_RDONLY | O_CLOEXEC));
  if (!binary) throw FatalError("cannot read this pdx binary to deploy it");
  auto source =
      passes.broadcast(binary.get(), missing.size(), std::vector<bool>(missing.size(), true));
  Indices installed;
  for (auto& [i, reply] :
       passes.run(missing, upload_command(agent), [&](std::size_t) { return source; })) {
    if (reply.result.exit_status == 0)
      installed.push_back(i);
    else
      report.hosts[i].error = "cannot install the agent: " + host_said(reply);
  }
  source.reset();
  take(passes.run(installed, command), nullptr);
  std::sort(listed.begin(), listed.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return listed;
}

// What a receiving agent replied: written and failed files, then its summary.
void read_receipt(const Reply& reply, PushedHost& outcome) {
  FrameDecoder decoder;
  decoder.feed(reply.out);
  bool summary = false;
  for (;;) {
    auto frame = decoder.next();
    Result<void> ok;
    if (!frame)
      ok = Error{frame.error()};
    else if (!*frame)
      break;
    else if (summary)
      ok = Error{"bytes after the summary"};
    else if ((*frame)->type == FrameType::written) {
      auto w = decode_written((*frame)->payload);
      if (!w) ok = Error{w.error()};
    } else if ((*frame)->type == FrameType::failed) {
      auto f = decode_failed((*frame)->payload);
      if (f)
        outcome.failed.push_back(std::move(*f));
      else
        ok = Error{f.error()};
    } else if ((*frame)->type == FrameType::summary) {
      auto s = decode_summary((*frame)->payload);
      if (s)
        outcome.written = *s;
      else
        ok = Error{s.error()};
      summary = true;
    } else {
      ok = Error{"unexpected frame type " + std::to_string(int((*frame)->type))};
    }
    if (!ok) {
      outcome.error = "malformed reply from the agent: " + ok.error();
      return;
    }
  }
  if (!summary || decoder.partial())
    outcome.error = reply.overflow ? "the agent's reply is over its limit" : host_said(reply);
}

struct Group {
  HostPushPlan plan;
  Indices hosts;
  std::unique_ptr<FrameStream> stream;
};

// Pass 3: each group's stream to its hosts.
void receive(Passes& passes, std::vector<Group>& groups, const AgentLocation& agent,
             const std::string& dest, PushReport& report, ProgressMeter* progress) {
  Indices receivers;
  std::vector<std::size_t> group_of;  // by position in receivers
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i : groups[g].hosts) {
      receivers.push_back(i);
      group_of.push_back(g);
    }
  std::vector<std::shared_ptr<Broadcast>> sources;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<bool> members(receivers.size());
    for (std::size_t k = 0; k < receivers.size(); ++k) members[k] = group_of[k] == g;
    sources.push_back(passes.broadcast(groups[g].stream->input(), receivers.size(), members,
                                       groups.size(), progress));
  }
  auto replies = passes.run(
      receivers, agent_command(agent, {"--receive=" + dest}),
      [&](std::size_t k) { return sources[group_of[k]]; }, progress);
  sources.clear();  // before the streams they read
  for (auto& [i, reply] : replies) read_receipt(reply, report.hosts[i]);
  for (auto& group : groups)
    for (auto& e : group.stream->errors()) report.local.push_back(std::move(e));
}

// The stream of `group`'s plan (each chain segment reads the sources again).
Result<std::unique_ptr<FrameStream>> stream_for(const PushOptions& options,
                                                const PushSources& sources,
                                                const HostPushPlan& plan) {
  return options.extract ? FrameStream::archive(options.sources)
                         : FrameStream::files(layout_of(sources, plan), plan);
}

// --relay: each group of two hosts or more goes host to host, as chains of at most -f hosts;
// hosts of a chain that could not link up stay in `groups` to be sent from here (said once).
void relay(Passes& passes, std::vector<Group>& groups, const PushSources& sources,
           const AgentLocation& agent, const PushOptions& options, PushReport& report) {
  std::vector<std::string> called_off;
  std::string command = agent_command(agent, {"--relay=" + options.dest});
  for (auto& group : groups) {
    if (group.hosts.size() < 2) continue;
    Indices star;
    for (std::size_t first = 0; first < group.hosts.size(); first += passes.fanout()) {
      if (passes.interrupted()) return;
      Indices chain(
          group.hosts.begin() + long(first),
          group.hosts.begin() + long(std::min(group.hosts.size(), first + passes.fanout())));
      if (chain.size() < 2) {
        star.insert(star.end(), chain.begin(), chain.end());
        continue;
      }
      auto stream = stream_for(options, sources, group.plan);
      if (!stream) throw FatalError(stream.error());
      RelayRun run = relay_chain(passes.transport(), passes.jobs_for(chain, command),
                                 (*stream)->input(), options.relay_options);
      for (auto& e : (*stream)->errors()) report.local.push_back(std::move(e));
      if (run.called_off) {
        std::vector<std::string> names;
        for (std::size_t i : chain) names.push_back(passes.label(i));
        called_off.push_back(fold_names(names) + ": the relay could not link up (" +
                             printable(run.reason) + "); sending from here");
        star.insert(star.end(), chain.begin(), chain.end());
        continue;
      }
      for (std::size_t k = 0; k < chain.size(); ++k) {
        RelayedHost& host = run.hosts[k];
        PushedHost& outcome = report.hosts[chain[k]];
        if (host.reply.result.failure != Failure::none)
          outcome.result = host.reply.result;
        else if (!host.error.empty())
          outcome.error = host.error;
        else
          read_receipt(host.reply, outcome);
      }
    }
    group.hosts = std::move(star);
  }
  for (const auto& line : called_off) std::fprintf(stderr, "pdx: warning: %s\n", line.c_str());
  std::erase_if(groups, [](const Group& g) { return g.hosts.empty(); });
  for (auto& group : groups) {  // the streams of what is left for the star, read afresh
    auto stream = stream_for(options, sources, group.plan);
    if (!stream) throw FatalError(stream.error());
    group.stream = std::move(*stream);
  }
}

// Pass 4: the hosts without the agent, all sent the same tar stream (distribute/posix_push.h).
void push_without_agent(Passes& passes, const Reasons& posix, const PushSources& sources,
                        const PushOptions& options, PushReport& report) {
  if (posix.empty()) return;
  std::vector<std::pair<std::string, std::string>> warned;
  Indices hosts;
  for (const auto& [i, why] : posix) {
    warned.emplace_back(passes.label(i), why);
    hosts.push_back(i);
  }
  std::fputs(posix_push_warning(warned).c_str(), stderr);
  auto made = options.extract ? PosixPush::archive(options.sources, options.dest)
                              : PosixPush::files(sources, options.dest);
  if (!made) {
    for (std::size_t i : hosts) report.hosts[i].error = made.error();
    return;
  }
  auto source =
      passes.broadcast((*made)->input(), hosts.size(), std::vector<bool>(hosts.size(), true));
  for (auto& [i, reply] :
       passes.run(hosts, (*made)->command(), [&](std::size_t) { return source; }))
    read_posix_reply(reply, report.hosts[i]);
  source.reset();
  for (auto& e : (*made)->finish()) report.local.push_back(std::move(e));
}

// The meter's total: each group's bytes times its hosts (an archive's parts' size with
// --extract); the hosts that receive nothing have ended.
void meter_plan(ProgressMeter& meter, const std::vector<Group>& groups, const PushSources& sources,
                std::uint64_t archive_bytes, const PushReport& report) {
  std::vector<bool> receiving(report.hosts.size());
  for (const auto& group : groups) {
    std::uint64_t bytes = archive_bytes;  // 0 without --extract; no files with it
    for (std::size_t f : group.plan.files) bytes += layout_of(sources, group.plan).files[f].size;
    meter.add_total(bytes * group.hosts.size());
    for (std::size_t i : group.hosts) receiving[i] = true;
  }
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const PushedHost& o = report.hosts[i];
    if (!receiving[i]) meter.host_ended(o.result.failure != Failure::none || !o.error.empty());
  }
}

}  // namespace

PushReport push(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                const PushOptions& options) {
  PushSources sources;
  std::uint64_t archive_bytes = 0;
  if (options.extract) {
    PartReader parts(options.sources);
    if (auto checked = parts.check(); !checked) throw UsageError(checked.error());
    archive_bytes = parts.total_size();
  } else {
    auto scanned = scan_sources(options.sources, options.dest);
    if (!scanned) throw UsageError(scanned.error());
    sources = std::move(*scanned);
  }
  for (const auto& s : sources.skipped)
    std::fprintf(stderr, "pdx: warning: %s: not a file or directory, not sent\n", s.c_str());
  auto agent = locate_agent(options.agent);
  if (!agent) throw FatalError(agent.error());

  PushReport report;
  report.hosts.resize(hosts.size());
  Passes passes(transport, hosts, tmpl, options.fanout, report);
  Indices all(hosts.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;

  std::vector<Group> groups;
  std::vector<std::string> list_args = {"--list=" + options.dest};
  for (const auto& top : sources.tops) list_args.push_back("--under=" + top);
  Reasons posix;  // hosts where the agent cannot run, and why
  if (options.no_agent)
    for (std::size_t i : all) posix.emplace_back(i, "--no-agent");
  if (options.checksum) list_args.push_back("--checksum");
  auto listed =
      list_hosts(passes, options.no_agent ? Indices{} : all, *agent, list_args, report, posix);
  if (options.checksum) compare_contents(sources, listed);
  for (auto& [i, listing] : listed) {
    HostPushPlan plan;
    if (!options.extract) {
      auto planned = plan_host(sources, listing, options.dest);
      if (!planned) {
        report.hosts[i].error = planned.error();
        continue;
      }
      plan = std::move(*planned);
      if (plan.empty()) {
        report.hosts[i].up_to_date = true;
        continue;
      }
    }
    auto same = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.plan == plan; });
    if (same == groups.end()) same = groups.insert(groups.end(), Group{plan, {}, nullptr});
    same->hosts.push_back(i);
  }
  if (options.relay) {
    relay(passes, groups, sources, *agent, options, report);
  } else {
    for (auto& group : groups) {
      auto stream = stream_for(options, sources, group.plan);
      if (!stream) throw FatalError(stream.error());
      group.stream = std::move(*stream);
    }
  }
  if (options.progress) meter_plan(*options.progress, groups, sources, archive_bytes, report);
  receive(passes, groups, *agent, options.dest, report, options.progress);
  push_without_agent(passes, posix, sources, options, report);
  if (options.manifest) check_manifest(*options.manifest, report);
  return report;
}

}  // namespace pdx
