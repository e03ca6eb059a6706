// pdx push SRC... DEST: files, trees or an archive's parts (--extract) to every host
// (pdx(1), DISTRIBUTION).
#include <unistd.h>

#include "archive/manifest.h"
#include "archive/part_name.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/relay_options.h"
#include "core/output.h"
#include "distribute/progress_meter.h"
#include "distribute/push/push.h"
#include "distribute/push/push_report.h"

namespace pdx {

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
  app.add_flag("--safe-links", push_options.safe_links,
               "Leave out the trees' symlinks that point outside their SRC (absolute, or '..' "
               "above it), each named in a warning")
      ->excludes(extract);
  std::string manifest;
  app.add_option("-m,--manifest", manifest,
                 "With --extract: check the parts' sizes and SHA-256 first, and each host's "
                 "unpacked file count and bytes after, against this manifest of pdx pack -m")
      ->needs(extract);
  AgentOptions agent;
  add_agent_options(app, agent, "Push with the hosts' sh and tar");
  RelayFlags relay;
  add_relay_options(app, relay);
  add_data_via_option(app, push_options.data_via);
  add_report_options(app, shown);
  app.add_option("paths", paths, "SRC... DEST")->required();
  if (auto status = parse_cli(app, argc, argv)) return *status;
  push_options.dest = take_dest(paths, "push");
  push_options.sources = std::move(paths);
  if (push_options.extract) {  // the parts, as unpack finds them: numbered in order, no set file
    auto parts = resolve_parts(push_options.sources);
    if (!parts) throw UsageError(parts.error());
    push_options.sources = std::move(*parts);
  }
  push_options.fanout = reach.fanout;
  push_options.agent = std::move(agent.agent);
  push_options.no_agent = agent.no_agent;
  if (!manifest.empty()) {
    auto read = read_manifest(manifest);
    if (!read) throw UsageError(read.error());
    // The parts must be the ones packed: their sizes and hashes, before any host is reached.
    if (auto ok = verify_parts(*read, push_options.sources); !ok) fail(ok);
    push_options.manifest = std::move(*read);
  }
  push_options.relay = relay_options(relay, push_options.relay_options);

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
