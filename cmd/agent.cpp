// pdx agent --list PATH [--checksum] [--receive DEST] [--relay DEST] | --receive DEST |
// --relay DEST | --signatures DEST | --patch DEST | --relay-patch DEST | --delete DEST | --send
// REMOTE...: pdx on a host, run by `pdx push`, `pdx sync` and `pdx pull` over its exec channel
// (pdx(1), DISTRIBUTION). Frames on stdin, replies on stdout (agent/agent_protocol.h,
// agent/delta_protocol.h).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "agent/agent.h"
#include "agent/agent_delta.h"
#include "agent/agent_relay.h"
#include "agent/agent_send.h"
#include "agent/extract_record.h"
#include "base/error.h"
#include "cmd/commands.h"
#include "cmd/parse.h"

namespace pdx {

namespace {

// --receive=DEST or --relay=DEST: what stdin brings written under DEST (and forwarded).
int take(const std::string& receive, const std::string& relay, const std::string& set) {
  auto received =
      !relay.empty()
          ? agent_relay(STDIN_FILENO, STDOUT_FILENO,
                        [&](FrameInput& in, int out) { return agent_receive(relay, in, out, set); })
          : agent_receive(receive, STDIN_FILENO, STDOUT_FILENO, set);
  if (!received) fail(received);
  return received->failures ? kExitFailure : kExitOk;
}

// --list with --receive and/or --relay: the listing is whole (its summary written); pdx sends
// 'r' (--receive: the stream follows on stdin) or 'l' (--relay: a link's setup follows) and then
// what that mode reads, or closes stdin (nothing to receive: exit 0). Both steps of a push to
// this host then take one exec, one shell and one agent start, whichever way its data goes.
int take_if_sent(const std::string& receive, const std::string& relay, const std::string& set) {
  char go = 0;
  ssize_t n;
  do n = ::read(STDIN_FILENO, &go, 1);
  while (n < 0 && errno == EINTR);
  if (n == 0) return kExitOk;
  if (n < 0)
    fail(ErrorKind::failure, std::string("cannot read standard input: ") + std::strerror(errno));
  if (go == 'r' && !receive.empty()) return take(receive, "", set);
  if (go == 'l' && !relay.empty()) return take("", relay, set);
  fail(ErrorKind::failure, "unexpected input after the listing");
}

}  // namespace

int cmd_agent(int argc, char** argv) {
  std::string list, receive, relay, signatures, patch, relay_patch, remove, set;
  std::vector<std::string> under;
  SendRequest send;
  CLI::App app(
      "The remote side of pdx push, pdx sync and pdx pull: run by pdx on each host, not by "
      "hand.\n"
      "Usage: pdx agent --list=PATH [--under=NAME]... [--checksum] [--set=ID]\n"
      "                 [--receive=DEST] [--relay=DEST] |\n"
      "       --receive=DEST [--set=ID] | --relay=DEST [--set=ID] | --signatures=DEST |\n"
      "       --patch=DEST | --relay-patch=DEST | --delete=DEST |\n"
      "       --send=REMOTE... [--suffix=S] [--no-directories]",
      "pdx agent");
  auto* list_opt = app.add_option("--list", list, "List PATH (and what is under it) on stdout");
  app.add_option("--under", under, "With --list: list PATH/NAME and below ('.': all of PATH)")
      ->needs(list_opt)
      ->allow_extra_args(false);
  bool checksum = false;
  app.add_flag("--checksum", checksum,
               "With --list: the XXH3-128 of every regular file listed, hashed on all cores")
      ->needs(list_opt);
  app.add_option("--set", set,
                 "push --extract's set of parts: with --list, say whether PATH holds it unpacked "
                 "and unchanged; with --receive or --relay, record it once unpacked whole")
      ->check([](const std::string& id) { return valid_set_id(id) ? "" : "not a set id"; });
  app.add_option("--receive", receive,
                 "Write what stdin carries under DEST (with --list: after the listing, if stdin "
                 "brings 'r')");
  app.add_option("--relay", relay,
                 "As --receive, from the previous host, forwarding to the next (with --list: "
                 "after the listing, if stdin brings 'l')");
  app.add_option("--signatures", signatures,
                 "Block signatures of the files under DEST named on stdin");
  app.add_option("--patch", patch, "Apply the deltas on stdin to the files under DEST");
  app.add_option("--relay-patch", relay_patch,
                 "As --patch, from the previous host, forwarding to the next");
  app.add_option("--delete", remove, "Remove the names under DEST given on stdin");
  auto* send_opt = app.add_option("--send", send.remotes,
                                  "Send REMOTE (and what is under it) to pdx over a direct link, "
                                  "as pull's tar would")
                       ->allow_extra_args(false);
  app.add_option("--suffix", send.suffix, "With --send: added to each REMOTE's top name")
      ->needs(send_opt);
  app.add_flag_function(
         "--no-directories", [&send](std::int64_t) { send.directories = false; },
         "With --send: a REMOTE that is a directory fails")
      ->needs(send_opt);
  if (auto status = parse_cli(app, argc, argv)) return *status;
  bool then = !list.empty() && (!receive.empty() || !relay.empty());
  if (int(!list.empty()) + (then ? 0 : !receive.empty() + !relay.empty()) + !signatures.empty() +
          !patch.empty() + !relay_patch.empty() + !remove.empty() + !send.remotes.empty() !=
      1)
    throw UsageError(
        "give one of --list PATH, --receive DEST, --relay DEST, --signatures DEST, --patch DEST, "
        "--relay-patch DEST, --delete DEST, --send REMOTE");

  std::signal(SIGPIPE, SIG_IGN);  // pdx gone: a failed write, and the file being written dropped
  if (!list.empty()) {
    if (auto listed =
            agent_list(list, under, STDOUT_FILENO, checksum ? Hashed::yes : Hashed::no, set);
        !listed)
      fail(listed);
    if (!then) return kExitOk;
    return take_if_sent(receive, relay, set);
  }
  if (!send.remotes.empty()) {
    if (auto sent = agent_send(send, STDIN_FILENO, STDOUT_FILENO); !sent) fail(sent);
    return kExitOk;
  }
  if (!signatures.empty()) {
    auto signed_ = agent_signatures(signatures, STDIN_FILENO, STDOUT_FILENO,
                                    std::max(1u, std::thread::hardware_concurrency()));
    if (!signed_) fail(signed_);
    return kExitOk;
  }
  if (!patch.empty()) {
    auto patched = agent_patch(patch, STDIN_FILENO, STDOUT_FILENO);
    if (!patched) fail(patched);
    return patched->failures ? kExitFailure : kExitOk;
  }
  if (!remove.empty()) {
    auto removed = agent_delete(remove, STDIN_FILENO, STDOUT_FILENO);
    if (!removed) fail(removed);
    return removed->failures ? kExitFailure : kExitOk;
  }
  if (!relay_patch.empty()) {
    auto patched = agent_relay(STDIN_FILENO, STDOUT_FILENO, [&](FrameInput& in, int out) {
      return agent_patch(relay_patch, in, out);
    });
    if (!patched) fail(patched);
    return patched->failures ? kExitFailure : kExitOk;
  }
  return take(receive, relay, set);
}

}  // namespace pdx
