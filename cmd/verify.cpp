// pdx verify REMOTE_DIR [--against DIR | -m MANIFEST] [--hash]: what every host holds under
// REMOTE_DIR, checked (pdx(1), pdx verify).

#include <unistd.h>

#include <optional>
#include <string>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/output.h"
#include "distribute/progress_meter.h"
#include "distribute/verify/reference.h"
#include "distribute/verify/verify.h"

namespace pdx {

int cmd_verify(int argc, char** argv) {
  HostOptions o;
  std::string remote_dir, against, manifest;
  bool hash = false;
  ReportOptions shown;
  CLI::App app{
      "Count (and hash) the files under REMOTE_DIR on every host, and compare.\n"
      "Usage: pdx verify -w HOSTS [options] REMOTE_DIR [--against DIR | -m MANIFEST] "
      "[--hash]",
      "pdx verify"};
  add_host_options(app, o);
  app.add_option("remote_dir", remote_dir, "The directory to check on every host")->required();
  auto* against_option =
      app.add_option("--against", against, "Compare with this directory here: names and sizes");
  app.add_option("-m,--manifest", manifest,
                 "Compare with the file count and bytes of a manifest (pdx pack -m)")
      ->excludes(against_option);
  app.add_flag("--hash", hash,
               "Compare contents too (XXH3-128 through pdx agent, on all cores of each host)");
  AgentOptions agent;
  add_agent_options(app, agent, "List with the hosts' find and sha256sum");
  add_report_options(app, shown);
  if (auto status = parse_cli(app, argc, argv)) return *status;
  if (hash && !manifest.empty())
    throw UsageError("a manifest holds no hashes of files: use --hash with --against");
  if (remote_dir.empty()) throw UsageError("an empty REMOTE_DIR");

  HostRun run = host_run(app, o);
  std::optional<Reference> reference;
  if (!against.empty() || !manifest.empty()) {
    auto made = against.empty() ? manifest_reference(manifest) : local_reference(against, hash);
    if (!made) fail(made);
    reference = std::move(*made);
  }
  ProgressLine line(progress_wanted(shown.progress, shown.no_progress), Measure::hosts,
                    run.hosts.size());
  VerifyOptions options{remote_dir,     reference ? &*reference : nullptr,
                        hash,           std::move(agent.agent),
                        agent.no_agent, o.fanout,
                        line.meter()};
  VerifyReport report = verify(*run.transport, run.hosts, run.tmpl, options);
  line.stop();
  write_all(STDERR_FILENO, report.warning);
  return report_outcomes(run.labels(), report.hosts, shown.json);
}

}  // namespace pdx
