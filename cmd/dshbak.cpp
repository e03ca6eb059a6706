// pdx started as `dshbak` (a link): `pdsh ... | dshbak [-c]` groups pdsh's "host: line" output
// by host, -c folding hosts with identical output (pdx(1), PDSH COMPATIBILITY).
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "base/error.h"
#include "cmd/commands.h"
#include "core/dshbak.h"
#include "core/output.h"

namespace pdx {

namespace {

constexpr const char* kUsage =
    "Usage: dshbak [OPTION]...\n"
    " -h       Display this help message\n"
    " -c       Coalesce identical output from hosts\n";

}  // namespace

int cmd_dshbak(int argc, char** argv) {
  Coalesce coalesce = Coalesce::no;
  opterr = 0;
  optind = 1;
  for (int c; (c = getopt(argc, argv, "hc")) != -1;) {
    if (c == 'h') {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (c == 'c') {
      coalesce = Coalesce::yes;
      continue;
    }
    throw UsageError(
        std::string("dshbak option -") + char(optopt) +
        " is unknown or not one pdx has (for -d DIR see pdx --outdir); see 'dshbak -h'");
  }
  if (optind < argc)
    throw UsageError("dshbak reads stdin and takes no file names; see 'dshbak -h'");

  std::ios::sync_with_stdio(false);
  Dshbak dshbak;
  for (std::string line; std::getline(std::cin, line);) dshbak.add_line(line);
  if (std::cin.bad()) throw FatalError("reading stdin failed");
  write_all(STDOUT_FILENO, dshbak.format(coalesce));
  return kExitOk;
}

}  // namespace pdx
