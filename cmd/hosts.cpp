// pdx hosts: show what a host expression names, like ClusterShell's nodeset.
#include <iostream>
#include <string>
#include <vector>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/hostset.h"

namespace pdx {
namespace {

enum class Show { expand, fold, count };

}  // namespace

int cmd_hosts(int argc, char** argv) {
  CLI::App app{"Show the hosts a host expression names.", "pdx hosts"};
  std::vector<std::string> include, exclude;
  Show show = Show::expand;
  std::size_t autostep = 0;
  app.add_option("-w", include, "Hosts: node[01-64], user@host:port, ^FILE, -TERM (repeatable)")
      ->allow_extra_args(false)
      ->type_name("HOSTS");
  app.add_option("-x", exclude, "Hosts to leave out, same syntax (repeatable)")
      ->allow_extra_args(false)
      ->type_name("HOSTS");
  GendersArgs genders;
  add_genders_options(app, genders);
  app.footer(
      "Without -w: $PDX_HOSTS, else the hostfile named by $WCOLL. See pdx(1), HOST EXPRESSIONS.");
  auto* expand = app.add_flag_callback(
      "--expand", [&] { show = Show::expand; }, "One host per line (the default)");
  auto* fold = app.add_flag_callback(
      "--fold", [&] { show = Show::fold; }, "The folded host set");
  auto* count = app.add_flag_callback(
      "--count", [&] { show = Show::count; }, "The number of hosts");
  app.add_option("--autostep", autostep,
                 "With --fold: write N or more evenly stepping numbers as a step range (n[1-9/2])")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{2}, kMaxHosts))
      ->needs(fold);
  expand->excludes(fold)->excludes(count);
  fold->excludes(count);
  if (auto status = parse_cli(app, argc, argv)) return *status;

  std::vector<Host> hosts = pick_hosts(include, exclude, genders, "");  // reaches none
  switch (show) {
    case Show::count:
      std::cout << hosts.size() << '\n';
      break;
    case Show::fold: {
      std::vector<std::string> specs;
      specs.reserve(hosts.size());
      for (const Host& host : hosts) specs.push_back(host.label());
      std::cout << fold_names(specs, autostep) << '\n';
      break;
    }
    case Show::expand: {
      std::string out;
      for (const Host& host : hosts) (out += host.label()) += '\n';
      std::cout << out;
      break;
    }
  }
  return 0;
}

}  // namespace pdx
