// pdx preflight [-E NCCL_SOCKET_IFNAME=IF] [--master HOST] [--port N] [--data DIR ...]
// [--need-disk DIR:SIZE] [--python PATH] [--net] [--json]: is every host ready for this training
// job (pdx(1), pdx preflight)?
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "archive/size.h"
#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/output.h"
#include "core/run_env.h"
#include "distribute/verify/reference.h"
#include "preflight/preflight.h"

namespace pdx {

namespace {

struct PreflightArgs {
  HostOptions hosts;
  std::vector<std::string> env, need_disk;
  std::string master, python = "python3", data, against, manifest, min_shm = "1G";
  int port = 29500;
  bool hash = false, json = false, no_ssh = false, net = false;
  double net_time = 3;
  int net_port = 0;
  std::uint64_t min_nofile = 4096;
  double max_clock_ms = 500, connect_wait = 5;
  AgentOptions agent;
};

void add_preflight_options(CLI::App& app, PreflightArgs& o) {
  add_host_options(app, o.hosts);
  app.add_option("-E", o.env, "Export KEY=VALUE to the probes (NCCL_SOCKET_IFNAME=IF...)")
      ->allow_extra_args(false);
  app.add_option("--master", o.master, "The rendezvous host (default: the first host)");
  app.add_option("--port", o.port, "The rendezvous port checked there (default 29500)")
      ->check(CLI::Range(1, 65535));
  app.add_option("--python", o.python, "The Python of the job on the hosts (default python3)");
  app.add_option("--need-disk", o.need_disk, "DIR:SIZE: at least SIZE free at DIR (repeatable)")
      ->allow_extra_args(false);
  auto* data = app.add_option("--data", o.data, "Check the files under DIR on every host");
  auto* against =
      app.add_option("--against", o.against, "... against this directory here")->needs(data);
  app.add_option("-m,--manifest", o.manifest, "... against a manifest (pdx pack -m)")
      ->needs(data)
      ->excludes(against);
  app.add_flag("--hash", o.hash, "... comparing contents too (pdx verify --hash)")->needs(data);
  add_agent_options(app, o.agent, "Check --data with the hosts' find and sha256sum");
  app.add_option("--min-shm", o.min_shm, "Least /dev/shm size (default 1G)");
  app.add_option("--min-nofile", o.min_nofile, "Least `ulimit -n` (default 4096)");
  app.add_option("--max-clock-offset", o.max_clock_ms,
                 "Most milliseconds a host's clock may be off this one's (default 500)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--connect-wait", o.connect_wait,
                 "Seconds each host tries the master's port (default 5)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-ssh-check", o.no_ssh, "Do not try ssh from the first host to every host");
  app.add_flag("--net", o.net, "Measure each host's bandwidth and latency to the next in a ring");
  app.add_option("--net-time", o.net_time, "Seconds each host sends for --net (default 3)")
      ->check(CLI::Range(0.1, 60.0));
  app.add_option("--net-port", o.net_port, "The port of --net on every host (default: --port + 1)")
      ->check(CLI::Range(1, 65535));
  app.add_flag("--json", o.json, "One JSON object per check and host on stdout");
}

std::uint64_t size_arg(const std::string& text, const std::string& option) {
  auto size = parse_size(text);
  if (!size) throw UsageError(option + " '" + text + "': " + size.error());
  return *size;
}

/// --need-disk DIR:SIZE, split at the last ':'.
std::pair<std::string, std::uint64_t> need_disk_arg(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError("--need-disk '" + text + "': expected DIR:SIZE, e.g. /data:500G");
  auto size = parse_size(text.substr(colon + 1));
  if (!size) throw UsageError("--need-disk '" + text + "': " + size.error());
  return {text.substr(0, colon), *size};
}

/// The master's rank: the host named by --master (its label or name), else the first.
std::size_t master_rank(const std::vector<Host>& hosts, const std::string& master) {
  if (master.empty()) return 0;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (hosts[i].label() == master || hosts[i].name == master) return i;
  throw UsageError("--master " + master + " is not one of the hosts");
}

}  // namespace

int cmd_preflight(int argc, char** argv) {
  PreflightArgs o;
  CLI::App app{
      "Check that every host is ready for a training job, and name the odd host out.\n"
      "Usage: pdx preflight -w HOSTS [-E NCCL_SOCKET_IFNAME=IF] [--master HOST] [--port N]\n"
      "       [--data DIR [--against DIR | -m MANIFEST]] [--need-disk DIR:SIZE] [--python PATH]\n"
      "       [--net [--net-time S]] [--json]",
      "pdx preflight"};
  add_preflight_options(app, o);
  if (auto status = parse_cli(app, argc, argv)) return *status;

  PreflightOptions options;
  for (const auto& d : o.need_disk) options.checks.need_disk.push_back(need_disk_arg(d));
  options.checks.min_shm = size_arg(o.min_shm, "--min-shm");
  if (o.python.empty()) throw UsageError("--python: an empty path");
  if (app.count("--data") && o.data.empty()) throw UsageError("--data: an empty DIR");
  std::vector<EnvVar> env;
  for (const auto& a : o.env) env.push_back(parse_env_assignment(a));

  HostRun run = host_run(app, o.hosts);
  run.tmpl.env = std::move(env);
  std::size_t master = master_rank(run.hosts, o.master);
  options.checks.master = master;
  options.checks.master_name = run.hosts[master].name;
  options.checks.port = o.port;
  options.checks.python = o.python;
  options.checks.min_nofile = o.min_nofile;
  options.checks.max_clock_ms = o.max_clock_ms;
  options.checks.ssh = !o.no_ssh;
  options.python = o.python;
  options.connect_wait_s = o.connect_wait;
  options.fanout = o.hosts.fanout;
  options.net = o.net;
  options.net_time = o.net_time;
  options.net_port = o.net_port ? o.net_port : o.port % 65535 + 1;

  std::optional<Reference> reference;
  if (!o.against.empty() || !o.manifest.empty()) {
    auto made =
        o.against.empty() ? manifest_reference(o.manifest) : local_reference(o.against, o.hash);
    if (!made) fail(made);
    reference = std::move(*made);
  }
  options.data_dir = o.data;
  options.reference = reference ? &*reference : nullptr;
  options.hash = o.hash;
  options.agent = o.agent.agent;
  options.no_agent = o.agent.no_agent;

  PreflightReport report = preflight(*run.transport, run.hosts, run.tmpl, options);
  std::vector<std::string> labels = run.labels();
  write_all(STDOUT_FILENO,
            o.json ? check_json(labels, report.checks) : check_lines(labels, report.checks));
  write_all(STDERR_FILENO, report.warning);
  if (report.unreached) return 255;
  return any_failed(report.checks) ? 1 : 0;
}

}  // namespace pdx
