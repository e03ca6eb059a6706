// pdx agent --list PATH [--checksum] [--receive DEST] [--relay DEST] | --signatures DEST [--list
// DEST] [STEP DEST]... | --receive DEST | --relay DEST | --patch DEST | --relay-patch DEST |
// --delete DEST | --send REMOTE...: pdx on a host, run by `pdx push`, `pdx sync` and `pdx pull`
// over its exec channel (pdx(1), DISTRIBUTION). Frames on stdin, replies on stdout
// (agent/agent_protocol.h, agent/delta_protocol.h).
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

using ReadAhead = FrameReader::ReadAhead;

// --receive=DEST or --relay=DEST: what stdin brings written under DEST (and forwarded).
// ReadAhead::no: stdin read no further than the stream's end (a next step follows).
int take(const std::string& receive, const std::string& relay, const std::string& set,
         ReadAhead ahead = ReadAhead::yes) {
  auto received =
      !relay.empty()
          ? agent_relay(STDIN_FILENO, STDOUT_FILENO,
                        [&](FrameInput& in, int out) { return agent_receive(relay, in, out, set); })
          : agent_receive(receive, STDIN_FILENO, STDOUT_FILENO, set, ahead);
  if (!received) fail(received);
  return received->failures ? kExitFailure : kExitOk;
}

// --patch=DEST or --relay-patch=DEST: the deltas stdin brings applied under DEST (and forwarded).
int patch_from(const std::string& patch, const std::string& relay_patch,
               ReadAhead ahead = ReadAhead::yes) {
  auto patched =
      !relay_patch.empty()
          ? agent_relay(STDIN_FILENO, STDOUT_FILENO,
                        [&](FrameInput& in, int out) { return agent_patch(relay_patch, in, out); })
          : agent_patch(patch, STDIN_FILENO, STDOUT_FILENO, ahead);
  if (!patched) fail(patched);
  return patched->failures ? kExitFailure : kExitOk;
}

// --delete=DEST: the names stdin brings removed under DEST.
int remove_named(const std::string& dest, ReadAhead ahead = ReadAhead::yes) {
  auto removed = agent_delete(dest, STDIN_FILENO, STDOUT_FILENO, ahead);
  if (!removed) fail(removed);
  return removed->failures ? kExitFailure : kExitOk;
}

// The steps an agent that stays may take after its first reply (--list's listing, or --signatures'
// signatures and then, with --list, the listing): pdx sends one byte naming a step it was given
// and then what that step reads, or closes stdin (nothing more: exit 0, or 1 if a step had
// failures). A step over stdin reads no further than its stream's `done`, and replies with a
// summary; then the next byte. A relay's or a direct link's setup ('l', 'q') is the last step: the
// stream may follow on stdin to its end (a head's). A push's steps, or a sync's signatures,
// deltas, whole files and deletions, then take one exec, one shell and one agent start per host.
struct Then {
  std::string receive, relay, patch, relay_patch, remove, set;

  bool any() const {
    return !receive.empty() || !relay.empty() || !patch.empty() || !relay_patch.empty() ||
           !remove.empty();
  }
  // 'r': --receive's stream follows on stdin; 'l': --relay's setup; 'p': --patch's deltas; 'q':
  // --relay-patch's setup; 'd': --delete's names.
  int take_steps(const char* after) const {
    int status = kExitOk;
    for (;;) {
      char go = 0;
      ssize_t n;
      do n = ::read(STDIN_FILENO, &go, 1);
      while (n < 0 && errno == EINTR);
      if (n == 0) return status;
      if (n < 0)
        fail(ErrorKind::failure,
             std::string("cannot read standard input: ") + std::strerror(errno));
      if (go == 'l' && !relay.empty()) return std::max(status, take("", relay, set));
      if (go == 'q' && !relay_patch.empty()) return std::max(status, patch_from("", relay_patch));
      int took;
      if (go == 'r' && !receive.empty())
        took = take(receive, "", set, ReadAhead::no);
      else if (go == 'p' && !patch.empty())
        took = patch_from(patch, "", ReadAhead::no);
      else if (go == 'd' && !remove.empty())
        took = remove_named(remove, ReadAhead::no);
      else
        fail(ErrorKind::failure, std::string("unexpected input after the ") + after);
      status = std::max(status, took);
      after = "step's receipt";
    }
  }
};

}  // namespace

int cmd_agent(int argc, char** argv) {
  std::string list, signatures;
  std::vector<std::string> under;
  Then then;
  SendRequest send;
  CLI::App app(
      "The remote side of pdx push, pdx sync and pdx pull: run by pdx on each host, not by "
      "hand.\n"
      "Usage: pdx agent --list=PATH [--under=NAME]... [--checksum] [--set=ID]\n"
      "                 [--receive=DEST] [--relay=DEST] |\n"
      "       --signatures=DEST [--list=DEST [--under=NAME]...] [--receive=DEST]\n"
      "                 [--relay=DEST] [--patch=DEST] [--relay-patch=DEST] [--delete=DEST] |\n"
      "       --receive=DEST [--set=ID] | --relay=DEST [--set=ID] | --patch=DEST |\n"
      "       --relay-patch=DEST | --delete=DEST |\n"
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
  app.add_option("--set", then.set,
                 "push --extract's set of parts: with --list, say whether PATH holds it unpacked "
                 "and unchanged; with --receive or --relay, record it once unpacked whole")
      ->check([](const std::string& id) { return valid_set_id(id) ? "" : "not a set id"; });
  app.add_option("--signatures", signatures,
                 "Block signatures of the files under DEST named on stdin (then, with --list, "
                 "the listing)");
  app.add_option("--receive", then.receive,
                 "Write what stdin carries under DEST (after --list or --signatures: if stdin "
                 "then brings 'r')");
  app.add_option("--relay", then.relay,
                 "As --receive, from the previous host, forwarding to the next (after --list or "
                 "--signatures: if stdin then brings 'l')");
  app.add_option("--patch", then.patch,
                 "Apply the deltas on stdin to the files under DEST (after --signatures: if "
                 "stdin then brings 'p')");
  app.add_option("--relay-patch", then.relay_patch,
                 "As --patch, from the previous host, forwarding to the next (after "
                 "--signatures: if stdin then brings 'q')");
  app.add_option("--delete", then.remove,
                 "Remove the names under DEST given on stdin (after --signatures: if stdin then "
                 "brings 'd')");
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
  const int steps = !then.receive.empty() + !then.relay.empty() + !then.patch.empty() +
                    !then.relay_patch.empty() + !then.remove.empty();
  const bool after_list = then.patch.empty() && then.relay_patch.empty() && then.remove.empty();
  const bool valid = !send.remotes.empty() ? list.empty() && signatures.empty() && steps == 0
                     : !signatures.empty() ? true
                     : !list.empty()       ? after_list
                                           : steps == 1;
  if (!valid)
    throw UsageError(
        "give one of --list PATH, --signatures DEST, --receive DEST, --relay DEST, --patch DEST, "
        "--relay-patch DEST, --delete DEST, --send REMOTE");

  std::signal(SIGPIPE, SIG_IGN);  // pdx gone: a failed write, and the file being written dropped
  if (!send.remotes.empty()) {
    if (auto sent = agent_send(send, STDIN_FILENO, STDOUT_FILENO); !sent) fail(sent);
    return kExitOk;
  }
  if (!signatures.empty()) {
    auto signed_ = agent_signatures(signatures, STDIN_FILENO, STDOUT_FILENO,
                                    std::max(1u, std::thread::hardware_concurrency()));
    if (!signed_) fail(signed_);
  }
  if (!list.empty()) {
    if (auto listed =
            agent_list(list, under, STDOUT_FILENO, checksum ? Hashed::yes : Hashed::no, then.set);
        !listed)
      fail(listed);
  }
  if (signatures.empty() && list.empty()) {
    if (!then.patch.empty() || !then.relay_patch.empty())
      return patch_from(then.patch, then.relay_patch);
    if (!then.remove.empty()) return remove_named(then.remove);
    return take(then.receive, then.relay, then.set);
  }
  if (!then.any()) return kExitOk;
  return then.take_steps(signatures.empty() ? "listing" : "signatures");
}

}  // namespace pdx
