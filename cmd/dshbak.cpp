// pdx started as `dshbak` (a link): `pdsh ... | dshbak [-c]` groups pdsh's "host: line" output
// by host, -c folding hosts with identical output; -d DIR writes each host's lines to DIR/host
// instead (-f: DIR made first), as the dshbak of pdsh 2.34 does (pdx(1), PDSH COMPATIBILITY).
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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
    " -c       Coalesce identical output from hosts\n"
    " -d DIR   Send output to files in DIR, one file per host\n"
    " -f       With -d, force creation of DIR\n";

// A label names a file in DIR: never a path, nor "." or ".." (it comes from the hosts' output).
bool safe_file_name(const std::string& label) {
  return label != "." && label != ".." && label.find('/') == std::string::npos;
}

void write_per_host(const Dshbak& dshbak, const std::string& dir) {
  for (const auto& host : dshbak.per_host()) {
    if (!safe_file_name(host.label)) {
      std::fprintf(stderr,
                   "pdx: warning: dshbak: host label '%s' cannot name a file in %s; skipped\n",
                   host.label.c_str(), dir.c_str());
      continue;
    }
    std::string path = dir + "/" + host.label;
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) throw FatalError("cannot open '" + path + "': " + std::strerror(errno));
    int error = write_all(fd, host.text);
    if (close(fd) != 0 && error == 0) error = errno;
    if (error != 0) throw FatalError("cannot write '" + path + "': " + std::strerror(error));
  }
}

}  // namespace

int cmd_dshbak(int argc, char** argv) {
  Coalesce coalesce = Coalesce::no;
  std::string dir;
  bool force = false;
  opterr = 0;
  optind = 1;
  for (int c; (c = getopt(argc, argv, ":hcfd:")) != -1;) {
    switch (c) {
      case 'h':
        std::fputs(kUsage, stderr);  // as dshbak: on stderr, status 0
        return kExitOk;
      case 'c':
        coalesce = Coalesce::yes;
        break;
      case 'f':
        force = true;
        break;
      case 'd':
        dir = optarg;
        break;
      case ':':
        throw UsageError(std::string("dshbak option -") + char(optopt) +
                         " needs an argument; see 'dshbak -h'");
      default:
        throw UsageError(std::string("dshbak option -") + char(optopt) +
                         " is unknown; see 'dshbak -h'");
    }
  }
  if (optind < argc)
    throw UsageError("dshbak reads stdin and takes no file names; see 'dshbak -h'");
  if (coalesce == Coalesce::yes && !dir.empty())
    throw UsageError("dshbak: do not give both -c and -d");
  if (force && dir.empty()) throw UsageError("dshbak: -f may only be used with -d");
  if (!dir.empty()) {
    std::error_code ec;
    if (force) std::filesystem::create_directories(dir, ec);
    if (ec) throw FatalError("cannot create directory '" + dir + "': " + ec.message());
    if (!std::filesystem::is_directory(dir, ec))
      throw UsageError("dshbak output directory '" + dir + "' does not exist (-f creates it)");
  }

  std::ios::sync_with_stdio(false);
  Dshbak dshbak;
  for (std::string line; std::getline(std::cin, line);) dshbak.add_line(line);
  if (std::cin.bad()) throw FatalError("reading stdin failed");
  if (!dir.empty()) {
    write_per_host(dshbak, dir);
  } else {
    write_all(STDOUT_FILENO, dshbak.format(coalesce));
  }
  return kExitOk;
}

}  // namespace pdx
