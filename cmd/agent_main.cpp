// pdx-agent: `pdx agent` alone, built from cmd/agent.cpp and the layers under it (none of ssh's,
// the executor's or the other commands'): what push, sync, verify and pull send to a host where
// it sits beside pdx (distribute/remote_agent.h), about 1.7 MB against pdx's 4.5 MB without
// symbols. Run by pdx as `pdx-agent agent ...`, never by hand.
#include <cstdio>
#include <string_view>

#include "agent/version_mark.h"
#include "base/error.h"
#include "base/open_files.h"
#include "cmd/commands.h"
#include "cmd/parse.h"

int main(int argc, char** argv) {
  pdx::raise_open_file_limit();
  std::string_view first = argc >= 2 ? argv[1] : "";
  if (argc == 2 && first == "--version") {
    std::puts(pdx::agent_version_mark().data());  // the mark pdx looks for in this binary
    return pdx::kExitOk;
  }
  if (first != "agent") {
    std::fputs("pdx-agent: error: run by pdx on each host (pdx-agent agent ...), not by hand\n",
               stderr);
    return pdx::kExitUsage;
  }
  argv[1] = argv[0];  // the subcommand's program name
  return pdx::report_errors([&] { return pdx::cmd_agent(argc - 1, argv + 1); });
}
