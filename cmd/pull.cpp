// pdx pull REMOTE... LOCAL_DIR: every host's files into LOCAL_DIR/<host>/ (pdx(1), pdx pull).

#include <unistd.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/relay_options.h"
#include "distribute/progress_meter.h"
#include "distribute/pull/pull.h"
#include "distribute/remote_commands.h"

namespace pdx {

int cmd_pull(int argc, char** argv) {
  HostOptions o;
  std::vector<std::string> paths;
  ReportOptions shown;
  PullOptions options;
  RelayFlags links;
  CLI::App app{
      "Copy files and trees from every host into LOCAL_DIR/<host>/.\n"
      "Usage: pdx pull -w HOSTS [options] REMOTE... LOCAL_DIR",
      "pdx pull"};
  add_host_options(app, o);
  add_report_options(app, shown);
  add_link_options(app, links);
  add_data_via_option(app, options.data_via);
  app.add_option("paths", paths, "REMOTE... LOCAL_DIR (a trailing / on REMOTE: its contents)")
      ->required();
  if (auto status = parse_cli(app, argc, argv)) return *status;
  if (paths.size() < 2) throw UsageError("name what to pull and the local directory to put it in");
  relay_options(links, options.relay);

  options.local_dir = paths.back();
  paths.pop_back();
  if (auto usable = check_local_dir(options.local_dir); !usable) fail(usable);
  if (auto command = pull_command(paths); !command) fail(command);
  options.remotes = std::move(paths);
  HostRun run = host_run(app, o);
  run.tmpl.substitute = false;  // the commands are pdx's own: run as written, under -R exec too
  options.unpacker = {this_program(), "unpack"};
  options.fanout = o.fanout;
  ProgressLine line(progress_wanted(shown.progress, shown.no_progress), Measure::bytes,
                    run.hosts.size());
  options.progress = line.meter();
  PullReport report = pull(*run.transport, run.hosts, run.tmpl, options);
  line.stop();
  write_all(STDERR_FILENO, report.warning);
  return report_outcomes(run.labels(), report.hosts, shown.json);
}

}  // namespace pdx
