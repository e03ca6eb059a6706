// pdx: run commands on many hosts at once, and stage data on them.
// main() only picks the subcommand and maps fatal errors to exit statuses (base/error.h).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>

#include "base/error.h"
#include "base/open_files.h"
#include "cmd/commands.h"
#include "cmd/parse.h"

namespace {

struct Subcommand {
  std::string_view name;
  int (*run)(int, char**);
};

constexpr Subcommand kSubcommands[] = {
    {"hosts", pdx::cmd_hosts},         {"pack", pdx::cmd_pack},
    {"unpack", pdx::cmd_unpack},       {"join", pdx::cmd_join},
    {"split", pdx::cmd_split},         {"push", pdx::cmd_push},
    {"pull", pdx::cmd_pull},           {"verify", pdx::cmd_verify},
    {"agent", pdx::cmd_agent},         {"sync", pdx::cmd_sync},
    {"preflight", pdx::cmd_preflight}, {"__control-holder", pdx::cmd_control_holder},
};

// pdx under the names of the tools it stands in for (links in `pdx --compat-dir`).
constexpr Subcommand kCompatNames[] = {{"pdsh", pdx::cmd_pdsh},
                                       {"dshbak", pdx::cmd_dshbak},
                                       {"pdcp", pdx::cmd_pdcp},
                                       {"rpdcp", pdx::cmd_pdcp}};

std::string_view program_name(const char* argv0) {
  std::string_view name = argv0;
  auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// The tool pdx was started as (argv[0]'s name), or nullptr for pdx itself.
const Subcommand* compat_name(int argc, char** argv) {
  for (const auto& compat : kCompatNames)
    if (argc >= 1 && compat.name == program_name(argv[0])) return &compat;
  return nullptr;
}

int dispatch(int argc, char** argv) {
  if (const Subcommand* compat = compat_name(argc, argv)) return compat->run(argc, argv);
  if (argc >= 2) {
    for (const auto& sub : kSubcommands) {
      if (sub.name == argv[1]) {
        argv[1] = argv[0];  // the subcommand sees "pdx" as its program name
        return sub.run(argc - 1, argv + 1);
      }
    }
  }
  return pdx::cmd_run(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  pdx::raise_open_file_limit();  // before anything opens a descriptor or reads the limit
  // pdsh, pdcp, rpdcp and dshbak exit 1 on a usage error, where pdx exits 2.
  int usage = compat_name(argc, argv) ? pdx::kExitFailure : pdx::kExitUsage;
  return pdx::report_errors([&] { return dispatch(argc, argv); }, usage);
}
