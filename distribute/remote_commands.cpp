#include "distribute/remote_commands.h"

#include "base/quote.h"

namespace pdx {

namespace {

// A path that cannot be read as an option: "-x" as "./-x".
std::string not_an_option(const std::string& path) {
  return path.starts_with("-") ? "./" + path : path;
}

// "-C DIR ./NAME" for one REMOTE.
Result<std::string> tar_member(std::string remote) {
  if (remote.empty()) return Error{"an empty remote path", ErrorKind::bad_input};
  bool contents = remote.ends_with("/");
  while (remote.size() > 1 && remote.ends_with("/")) remote.pop_back();
  std::size_t slash = remote.rfind('/');
  std::string dir = slash == std::string::npos ? "." : remote.substr(0, slash == 0 ? 1 : slash);
  std::string name = slash == std::string::npos ? remote : remote.substr(slash + 1);
  if (remote == "/") name = ".";
  if (name == "..")
    return Error{remote + ": ends in '..'; name the directory itself", ErrorKind::bad_input};
  if (contents && name != ".") {
    dir = remote;
    name = ".";
  }
  // GNU tar takes a relative -C from the directory of the -C before it: start each from the
  // shell's own.
  std::string from = dir.starts_with("/") ? shell_quote(dir) : "\"$PWD\"/" + shell_quote(dir);
  return "-C " + from + " " + shell_quote("./" + name);
}

}  // namespace

Result<std::string> pull_command(const std::vector<std::string>& remotes, std::string_view suffix,
                                 Directories directories) {
  std::string command;
  if (directories == Directories::refused)
    for (const auto& remote : remotes) {
      command += "if [ -d " + shell_quote(not_an_option(remote)) +
                 " ]; then printf 'use -r to copy directories: %s\\n' " + shell_quote(remote) +
                 " >&2; exit 1; fi\n";
    }
  command += "tar -cf -";
  if (!suffix.empty()) {
    // Members are "./NAME...": the first component after "./" gets the suffix. In sed's
    // replacement only '\\', '&' and the delimiter are special.
    std::string replacement;
    for (char c : suffix) {
      if (c == '\\' || c == '&' || c == '|') replacement += '\\';
      replacement += c;
    }
    command += " " + shell_quote("--transform=s|^\\./[^/][^/]*|&" + replacement + "|S");
  }
  for (const auto& remote : remotes) command += " " + TRY(tar_member(remote));
  return command;
}

std::string verify_command(const std::string& remote_dir, bool hash) {
  std::string status = std::to_string(kNoDirectoryStatus);
  std::string command = "cd " + shell_quote(not_an_option(remote_dir)) + " 2>/dev/null || exit " +
                        status + "\nfind . -type f -printf 's %s %P\\0' || exit\n";
  if (hash) {
    // About four batches per core (at most 4096 files each), hashed at once; each batch writes
    // a file of its own, read out when all are done, so that no two batches' records
    // interleave on stdout.
    command +=
        "p=$(nproc 2>/dev/null || echo 1)\n"
        "b=$(( $(find . -type f -printf x | wc -c) / (4 * p) + 1 ))\n"
        "[ \"$b\" -le 4096 ] || b=4096\n"
        "t=$(mktemp -d) || exit\n"
        "trap 'rm -rf \"$t\"' EXIT\n"
        "find . -type f -print0 | xargs -0 -r -n \"$b\" -P \"$p\" "
        "sh -c 'f=$(mktemp \"$0/h.XXXXXX\") && exec sha256sum -z -- \"$@\" > \"$f\"' \"$t\"\n"
        "s=$?\n"
        "find \"$t\" -type f -exec cat {} + || exit\n"
        "exit $s\n";
  }
  return command;
}

}  // namespace pdx
