// pdx push SRC... DEST: files, trees or an archive's parts (--extract) to every host
// (pdx(1), DISTRIBUTION).
#include <unistd.h>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/output.h"
#include "distribute/progress_meter.h"
#include "distribute/push.h"
#include "distribute/push_report.h"

namespace pdx {

int cmd_push(int argc, char** argv) {
  HostOptions reach;
  PushOptions push_options;
  std::vector<std::string> paths;
  bool json = false, progress = false, no_progress = false;
  CLI::App app(
      "Copy files, trees or an archive (unpacked on arrival) to every host.\n"
      "Usage: pdx push -w HOSTS [options] SRC... DEST",
      "pdx push");
  add_host_options(app, reach);
  app.add_flag("--extract", push_options.extract,
               "SRC... are an archive or its parts, in order: unpack it into DEST on every host");
  app.add_option("--agent", push_options.agent,
                 "Run the pdx installed at PATH on the hosts instead of deploying this one");
  app.add_flag("--json", json, "Report one JSON object per host on stdout");
  app.add_flag("--progress", progress, "Show the progress line even when stderr is no terminal");
  app.add_flag("--no-progress", no_progress, "Show no progress line")->excludes("--progress");
  app.add_option("paths", paths, "SRC... DEST")->required();
  if (auto status = parse_cli(app, argc, argv)) return *status;
  if (paths.size() < 2) throw UsageError("give at least one SRC and a DEST; see 'pdx push --help'");
  push_options.dest = paths.back();
  paths.pop_back();
  push_options.sources = std::move(paths);
  push_options.fanout = reach.fanout;

  HostRun run = host_run(app, reach);
  ProgressLine line(progress_wanted(progress, no_progress), Measure::bytes_of_total,
                    run.hosts.size());
  push_options.progress = line.meter();
  PushReport report = push(*run.transport, run.hosts, run.tmpl, push_options);
  line.stop();
  PushText text = json ? push_json(run.labels(), report) : push_text(run.labels(), report);
  write_all(STDOUT_FILENO, text.out);
  write_all(STDERR_FILENO, text.err);
  return push_exit_status(report);
}

}  // namespace pdx
