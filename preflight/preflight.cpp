#include "preflight/preflight.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/strings.h"
#include "core/executor.h"
#include "core/summary.h"
#include "distribute/remote_agent.h"
#include "distribute/verify/verify.h"
#include "preflight/probe_sink.h"

namespace pdx {

namespace {

/// The probe's script for the host at `rank`: the master's starts a listener, the first host's
/// tries ssh to every host.
std::string script_for(std::size_t rank, const std::vector<Host>& hosts, const ProbeOptions& base,
                       const PreflightOptions& o) {
  ProbeOptions p = base;
  p.is_master = o.checks.master && *o.checks.master == rank;
  if (rank == 0 && o.checks.ssh) p.ssh_targets = hosts;
  return probe_script(p);
}

CheckResult data_check(const PreflightOptions& o, const VerifyReport& report) {
  CheckResult check{"data " + o.data_dir, {}};
  for (const HostOutcome& h : report.hosts) {
    if (h.status == 255) {  // not reached: said once, in "reached"
      check.hosts.push_back(std::nullopt);
      continue;
    }
    Outcome outcome = h.status == 0 ? Outcome::ok : Outcome::fail;
    check.hosts.push_back(Verdict{outcome, printable(h.what.empty() ? h.error : h.what), ""});
  }
  return check;
}

/// One --net round over the reached hosts (`ring`: their ranks), all at once: the k-th sends to
/// the reached host `to[k]` (none: -1) and serves `accepts[k]` senders. What a sender said goes to
/// its fact `key` (with `key`.to: whom it sent to; net.loopback when it was loopback).
struct NetRound {
  std::string key;
  std::vector<long> to;
  std::vector<std::size_t> accepts;
};

void measure(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
             const PreflightOptions& o, const std::vector<std::size_t>& ring, const NetRound& round,
             std::vector<HostProbe>& probes) {
  std::vector<Host> members;
  for (std::size_t i : ring) members.push_back(hosts[i]);
  std::vector<Job> jobs = make_jobs(members, tmpl);
  for (std::size_t k = 0; k < ring.size(); ++k) {
    std::string next = round.to[k] < 0 ? "" : members[static_cast<std::size_t>(round.to[k])].name;
    jobs[k].command =
        net_script(o.python, members[k].name, next, round.accepts[k], o.net_port, o.net_time);
  }
  ProbeSink sink(members.size());
  execute(transport, jobs, sink, {std::max(o.fanout, members.size()), 0});  // all at once
  for (std::size_t k = 0; k < ring.size(); ++k) {
    if (round.to[k] < 0) continue;
    HostProbe& p = probes[ring[k]];
    HostFacts said = HostFacts::parse(sink.out(k));
    p.facts.set(round.key, said.value_or("net", "fail no answer"));
    if (said.has("net.loopback")) p.facts.set("net.loopback", "1");
    p.facts.set(round.key + ".to", jobs[static_cast<std::size_t>(round.to[k])].label);
  }
}

/// --net: every reached host sends to the next reached one (facts net, net.to), then, with
/// --master, every other reached host to the master at once (facts net.master, net.master.to).
void measure_net(Transport& transport, const std::vector<Host>& hosts, const JobTemplate& tmpl,
                 const PreflightOptions& o, std::vector<HostProbe>& probes) {
  std::vector<std::size_t> ring;
  for (std::size_t i = 0; i < probes.size(); ++i)
    if (probes[i].error.empty()) ring.push_back(i);
  if (ring.size() < 2) return;
  NetRound next{"net", {}, std::vector<std::size_t>(ring.size(), 1)};
  for (std::size_t k = 0; k < ring.size(); ++k)
    next.to.push_back(static_cast<long>((k + 1) % ring.size()));
  measure(transport, hosts, tmpl, o, ring, next, probes);
  if (!o.checks.master) return;
  auto master = std::find(ring.begin(), ring.end(), *o.checks.master);
  if (master == ring.end()) return;  // not reached: said in its own check
  long m = master - ring.begin();
  NetRound star{"net.master", std::vector<long>(ring.size(), m),
                std::vector<std::size_t>(ring.size(), 0)};
  star.to[static_cast<std::size_t>(m)] = -1;
  star.accepts[static_cast<std::size_t>(m)] = ring.size() - 1;
  measure(transport, hosts, tmpl, o, ring, star, probes);
}

/// Where the probe's output starts (its first line, clock=): after what the host's shell may
/// print before running it (a startup file); npos when the probe did not run.
std::size_t probe_start(const std::string& out) {
  if (out.starts_with("clock=")) return 0;
  auto at = out.find("\nclock=");
  return at == std::string::npos ? at : at + 1;
}

}  // namespace

std::optional<double> clock_offset_ms(const std::string& out,
                                      std::chrono::system_clock::time_point came) {
  std::string_view text = out;
  if (!text.starts_with("clock=")) return std::nullopt;
  text = text.substr(6, text.find('\n') - 6);
  std::uint64_t ns = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ns);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  if (end - text.data() <= 10) ns *= 1'000'000'000;  // a date without %N: seconds
  double here = std::chrono::duration<double, std::nano>(came.time_since_epoch()).count();
  return (static_cast<double>(ns) - here) / 1e6;
}

PreflightReport preflight(Transport& transport, const std::vector<Host>& hosts,
                          const JobTemplate& tmpl, const PreflightOptions& o) {
  ProbeOptions base;
  base.python = o.python;
  for (const auto& [dir, size] : o.checks.need_disk) base.disk_dirs.push_back(dir);
  if (o.checks.master) {
    base.master = o.checks.master_name;
    base.port = o.checks.port;
    base.hosts = hosts.size();
    base.wait_s = o.connect_wait_s;
    // Hosts beyond -f start their probe later: the listener waits for them too.
    std::size_t rounds = (hosts.size() + o.fanout - 1) / std::max<std::size_t>(o.fanout, 1);
    base.listen_s = o.connect_wait_s + 5.0 * static_cast<double>(std::max<std::size_t>(rounds, 1));
  }
  std::vector<Job> jobs = make_jobs(hosts, tmpl);
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].command = script_for(i, hosts, base, o);

  ProbeSink sink(hosts.size());
  std::vector<HostResult> results = execute(transport, jobs, sink, {o.fanout, 0});

  PreflightReport report;
  CheckOptions checks = o.checks;
  if (o.agent.empty() && !o.no_agent)  // the agent this pdx deploys, cached there or not
    if (auto agent = locate_agent("")) {
      checks.agent_sha256.push_back(agent->sha256);
      if (agent->fallback) checks.agent_sha256.push_back(agent->fallback->sha256);
    }
  std::vector<HostProbe> probes;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    HostProbe p;
    p.label = jobs[i].label;
    p.slots = hosts[i].slots;
    const HostResult& r = results[i];
    if (r.failure != Failure::none) {
      p.error = describe(r);
      report.unreached = true;
    } else if (std::size_t start = probe_start(sink.out(i)); start == std::string::npos) {
      std::string said = sink.err(i);
      p.error = "the probe did not run: " + (said.empty() ? describe(r) : said);
      if (p.error.ends_with(": ")) p.error += "no output";
    } else {
      std::string out = sink.out(i).substr(start);
      p.facts = HostFacts::parse(out);
      if (auto came = sink.first_out(i)) p.clock_offset_ms = clock_offset_ms(out, *came);
    }
    probes.push_back(std::move(p));
  }
  if (o.net) measure_net(transport, hosts, tmpl, o, probes);
  checks.net = o.net;
  report.checks = run_checks(probes, checks);

  if (!o.data_dir.empty()) {
    VerifyOptions v{o.data_dir, o.reference, o.hash, o.agent, o.no_agent, o.fanout, nullptr};
    VerifyReport verified = verify(transport, hosts, tmpl, v);
    report.checks.push_back(data_check(o, verified));
    report.warning = verified.warning;
  }
  return report;
}

}  // namespace pdx
