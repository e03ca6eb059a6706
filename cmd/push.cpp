// pdx push SRC... DEST: files, trees or an archive's parts (--extract) to every host
// (pdx(1), DISTRIBUTION).
#include <unistd.h>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/output.h"
#include "distribute/push.h"

namespace pdx {

int cmd_push(int argc, char** argv) {
  HostOptions reach;
  PushOptions push_options;
  std::vector<std::string> paths;
  CLI::App app(
      "Copy files, trees or an archive (unpacked on arrival) to every host.\n"
      "Usage: pdx push -w HOSTS [options] SRC... DEST",
      "pdx push");
  add_host_options(app, reach);
  app.add_flag("--extract", push_options.extract,
               "SRC... are an archive or its parts, in order: unpack it into DEST on every host");
  app.add_option("--agent", push_options.agent,
                 "Run the pdx installed at PATH on the hosts instead of deploying this one");
  app.add_flag(
      "--no-agent", push_options.no_agent,
      "Push with the hosts' sh and tar, not pdx agent (slower; for hosts it cannot run on)");
  app.add_option("paths", paths, "SRC... DEST")->required();
  if (auto status = parse_cli(app, argc, argv)) return *status;
  if (paths.size() < 2) throw UsageError("give at least one SRC and a DEST; see 'pdx push --help'");
  push_options.dest = paths.back();
  paths.pop_back();
  push_options.sources = std::move(paths);
  push_options.fanout = reach.fanout;

  HostRun run = host_run(app, reach);
  PushReport report = push(*run.transport, run.hosts, run.tmpl, push_options);
  PushText text = push_text(run.labels(), report);
  write_all(STDOUT_FILENO, text.out);
  write_all(STDERR_FILENO, text.err);
  return push_exit_status(report);
}

}  // namespace pdx
