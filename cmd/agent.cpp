// pdx agent --list PATH [--checksum] | --receive DEST | --relay DEST: pdx on a host, run by
// `pdx push` over its exec channel (pdx(1), DISTRIBUTION). Frames on stdin, replies on stdout
// (distribute/agent_protocol.h).
#include <unistd.h>

#include <csignal>

#include "base/error.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "distribute/agent.h"
#include "distribute/agent_relay.h"

namespace pdx {

int cmd_agent(int argc, char** argv) {
  std::string list, receive, relay;
  std::vector<std::string> under;
  CLI::App app(
      "The remote side of pdx push: run by pdx on each host, not by hand.\n"
      "Usage: pdx agent --list=PATH [--under=NAME]... [--checksum] | --receive=DEST | --relay=DEST",
      "pdx agent");
  auto* list_opt = app.add_option("--list", list, "List PATH (and what is under it) on stdout");
  app.add_option("--under", under, "With --list: list PATH/NAME and below ('.': all of PATH)")
      ->needs(list_opt)
      ->allow_extra_args(false);
  bool checksum = false;
  app.add_flag("--checksum", checksum, "With --list: the SHA-256 of every regular file listed")
      ->needs(list_opt);
  auto* receive_opt = app.add_option("--receive", receive, "Write what stdin carries under DEST")
                          ->excludes(list_opt);
  app.add_option("--relay", relay, "As --receive, from the previous host, forwarding to the next")
      ->excludes(list_opt, receive_opt);
  if (auto status = parse_cli(app, argc, argv)) return *status;
  if (int(list.empty()) + int(receive.empty()) + int(relay.empty()) != 2)
    throw UsageError("give one of --list PATH, --receive DEST, --relay DEST");

  std::signal(SIGPIPE, SIG_IGN);  // pdx gone: a failed write, and the file being written dropped
  if (!list.empty()) {
    if (auto listed =
            agent_list(list, under, STDOUT_FILENO, checksum ? Checksum::sha256 : Checksum::none);
        !listed)
      fail(listed);
    return kExitOk;
  }
  auto received = relay.empty() ? agent_receive(receive, STDIN_FILENO, STDOUT_FILENO)
                                : agent_relay(relay, STDIN_FILENO, STDOUT_FILENO);
  if (!received) fail(received);
  return received->failures ? kExitFailure : kExitOk;
}

}  // namespace pdx
