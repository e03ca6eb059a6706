// pdx sync SRC... DEST: files and trees to every host, changed files as deltas against each
// host's old copy (pdx(1), DISTRIBUTION).
#include <unistd.h>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/relay_options.h"
#include "core/output.h"
#include "distribute/sync/sync.h"

namespace pdx {

int cmd_sync(int argc, char** argv) {
  HostOptions reach;
  SyncOptions sync_options;
  std::vector<std::string> paths;
  CLI::App app(
      "Bring files and trees up to date on every host, sending changed files as deltas.\n"
      "Usage: pdx sync -w HOSTS [options] SRC... DEST",
      "pdx sync");
  add_host_options(app, reach);
  app.add_flag("-n,--dry-run", sync_options.dry_run,
               "Say what would be patched and sent on each host; change nothing");
  app.add_option("--exclude", sync_options.excludes,
                 "Neither send nor delete names matching PATTERN (rsync's rules; repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--safe-links", sync_options.safe_links,
               "Leave out the trees' symlinks that point outside their SRC (absolute, or '..' "
               "above it), each named in a warning");
  app.add_flag("--delete", sync_options.delete_extras,
               "Remove what is under DEST on the hosts but not in the sources, after the transfer");
  app.add_option("--agent", sync_options.agent,
                 "Run the pdx installed at PATH on the hosts instead of deploying this one");
  RelayFlags relay;
  add_relay_options(app, relay);
  add_data_via_option(app, sync_options.data_via);
  app.add_option("paths", paths, "SRC... DEST")->required();
  if (auto status = parse_cli(app, argc, argv)) return *status;
  sync_options.dest = take_dest(paths, "sync");
  sync_options.sources = std::move(paths);
  sync_options.fanout = reach.fanout;
  sync_options.relay = relay_options(relay, sync_options.relay_options);

  HostRun run = host_run(app, reach);
  SyncReport report = sync(*run.transport, run.hosts, run.tmpl, sync_options);
  PushText text = sync_text(run.labels(), report);
  write_all(STDOUT_FILENO, text.out);
  write_all(STDERR_FILENO, text.err);
  return sync_exit_status(report);
}

}  // namespace pdx
