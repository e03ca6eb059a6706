// pdx push SRC... DEST: files, trees or an archive's parts (--extract) to every host
// (pdx(1), DISTRIBUTION).
#include <unistd.h>

#include "archive/manifest.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/output.h"
#include "distribute/progress_meter.h"
#include "distribute/push.h"
#include "distribute/push_report.h"
#include "distribute/relay_frames.h"

namespace pdx {

namespace {

// "LOW-HIGH" or "PORT", ports 1..65535.
Result<std::pair<std::uint16_t, std::uint16_t>> parse_port_range(const std::string& text) {
  auto number = [](std::string_view s) -> Result<std::uint16_t> {
    unsigned long n = 0;
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string_view::npos ||
        (n = std::stoul(std::string(s))) < 1 || n > 65535)
      return Error{"'" + std::string(s) + "' is not a port (1-65535)"};
    return std::uint16_t(n);
  };
  std::string_view t = text;
  auto dash = t.find('-');
  std::uint16_t low = TRY(number(t.substr(0, dash)));
  std::uint16_t high = dash == std::string_view::npos ? low : TRY(number(t.substr(dash + 1)));
  if (high < low) return Error{"the range ends before it starts"};
  return std::pair{low, high};
}

// --relay's value: "chain" (the flag alone) or "tree:K", K in 2..kMaxRelayFanout; the fan-out.
Result<std::size_t> parse_relay_shape(const std::string& text) {
  if (text == "chain") return std::size_t(1);
  std::string_view k = std::string_view(text).substr(text.starts_with("tree:") ? 5 : text.size());
  if (!k.empty() && k.size() <= 2 && k.find_first_not_of("0123456789") == std::string_view::npos)
    if (std::size_t n = std::stoul(std::string(k)); n >= 2 && n <= kMaxRelayFanout) return n;
  return Error{"'" + text + "' is neither chain nor tree:K with K in 2-" +
               std::to_string(kMaxRelayFanout)};
}

}  // namespace

int cmd_push(int argc, char** argv) {
  HostOptions reach;
  PushOptions push_options;
  std::vector<std::string> paths;
  ReportOptions shown;
  CLI::App app(
      "Copy files, trees or an archive (unpacked on arrival) to every host.\n"
      "Usage: pdx push -w HOSTS [options] SRC... DEST",
      "pdx push");
  add_host_options(app, reach);
  auto* extract = app.add_flag(
      "--extract", push_options.extract,
      "SRC... are an archive or its parts, in order: unpack it into DEST on every host");
  app.add_flag("--checksum", push_options.checksum,
               "Compare files by content (XXH3-128, hashed on all cores here and on the hosts), "
               "not mtime")
      ->excludes(extract);
  std::string manifest;
  app.add_option("-m,--manifest", manifest,
                 "With --extract: check each host's unpacked file count and bytes against this "
                 "manifest of pdx pack -m")
      ->needs(extract);
  AgentOptions agent;
  add_agent_options(app, agent, "Push with the hosts' sh and tar");
  std::string relay;
  app.add_flag("--relay{chain}", relay,
               "Send host to host over TCP between the agents instead of from here: a chain, or "
               "with --relay=tree:K a tree of fan-out K (2-16)");
  app.add_option("--relay-bind", push_options.relay_options.bind,
                 "With --relay: the address the agents listen on (default: the one ssh reached)");
  std::string ports;
  app.add_option("--relay-ports", ports,
                 "With --relay: the agents' ports, LOW-HIGH (default: any)");
  add_report_options(app, shown);
  app.add_option("paths", paths, "SRC... DEST")->required();
  if (auto status = parse_cli(app, argc, argv)) return *status;
  if (paths.size() < 2) throw UsageError("give at least one SRC and a DEST; see 'pdx push --help'");
  push_options.dest = paths.back();
  paths.pop_back();
  push_options.sources = std::move(paths);
  push_options.fanout = reach.fanout;
  push_options.agent = std::move(agent.agent);
  push_options.no_agent = agent.no_agent;
  if (!manifest.empty()) {
    auto read = read_manifest(manifest);
    if (!read) throw UsageError(read.error());
    push_options.manifest = std::move(*read);
  }
  if (!relay.empty()) {
    auto fanout = parse_relay_shape(relay);
    if (!fanout) throw UsageError("--relay: " + fanout.error());
    push_options.relay = true;
    push_options.relay_options.fanout = *fanout;
  }
  if (!ports.empty()) {
    auto range = parse_port_range(ports);
    if (!range) throw UsageError("--relay-ports: " + range.error());
    push_options.relay_options.low = range->first;
    push_options.relay_options.high = range->second;
  }

  HostRun run = host_run(app, reach);
  ProgressLine line(progress_wanted(shown.progress, shown.no_progress), Measure::bytes_of_total,
                    run.hosts.size());
  push_options.progress = line.meter();
  PushReport report = push(*run.transport, run.hosts, run.tmpl, push_options);
  line.stop();
  PushText text = shown.json ? push_json(run.labels(), report) : push_text(run.labels(), report);
  write_all(STDOUT_FILENO, text.out);
  write_all(STDERR_FILENO, text.err);
  return push_exit_status(report);
}

}  // namespace pdx
