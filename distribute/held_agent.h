#pragma once
// A push's (or a sync's) steps on one host in one exec (distribute/push/push.cpp,
// distribute/sync/sync.cpp): `pdx agent --list=... --receive=DEST --relay=DEST` lists DEST and
// stays (sync's `--signatures=DEST [--list=DEST] --receive=... --patch=... --delete=...` reads
// its requests first, its stdin's lead, and answers them, then lists). Its first reply is read
// as it comes and handed over once whole (its last summary frame) while the command goes on,
// waiting on its stdin; after the wave's plan, each step the host takes sends it a byte naming
// the step and then what the step reads (Steps: 'r' and its stream over ssh, sync's 'p' and 'd':
// receive(), whose reply is the step's receipt, handed over at its summary, the agent waiting
// again for the next; 'l' and its link's setup: a relay's member, or a star's host with a direct
// link, the agent's --relay mode, sync's 'q': run(), the last step, to the command's end), or
// closes its stdin (it exits) before the session runs anything else (nothing more to send, a
// POSIX group). One exec, one shell, one check of the cached agent and one agent start per host
// instead of one per step.
//
//   listed()                  -> the first reply, the command still running; or its end
//   receive(input)...         -> each step's receipt, the command still running; or its end
//   run(input, io) | release()  -> the command's end
//
// The command runs on a coroutine of its own on the host's strand, which must be the caller's;
// the session runs nothing else until it has ended. Whatever the caller does after listed(), it
// must co_await release() (a no-op once ended) before the session or this object goes.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <string>

#include "distribute/reply_sink.h"
#include "transport/input_source.h"
#include "transport/transport.h"

namespace pdx {

class HeldAgent {
 public:
  using Reply = ReplySink::Reply;

  /// The bytes naming the next step: receive() sends `star` (a stream over ssh), run() `relay`
  /// (a link's setup).
  struct Steps {
    char star = 'r', relay = 'l';
  };
  // Push's and sync's whole files; sync's deltas; sync's deletions (receive() only).
  static constexpr Steps kReceive{'r', 'l'}, kPatch{'p', 'q'}, kDelete{'d', 0};

  /// `lead`: what the command reads before its first reply (a source that never waits), if
  /// anything; `replies`: how many summary frames its first reply holds.
  HeldAgent(Session& session, const Job& job, std::string command, StopSignal& stop,
            std::unique_ptr<InputSource> lead = nullptr, int replies = 1);
  HeldAgent(const HeldAgent&) = delete;
  HeldAgent& operator=(const HeldAgent&) = delete;

  /// Starts the command and waits for its listing: the listing's bytes, exit status 0, while the
  /// command waits for its stream. When it ended first (the agent missing there or unable to
  /// run, a listing that failed, Ctrl-C), or its stdout did not decode as frames (a shell that
  /// writes before the command: its stdin is closed), its whole reply once it has ended.
  boost::asio::awaitable<Reply> listed();
  /// Whether the command, listed (and past its steps over ssh), still waits for a step.
  bool waiting() const;
  /// What receive() and run() send (kReceive until told otherwise).
  void take_as(Steps steps) { steps_ = steps; }
  /// Sends it 'r' (Steps::star) and then `input`, and waits for the step's receipt (its summary
  /// frame, `input` all sent), or for the command's end: what it replied to this step (exit 0
  /// while it runs on). Only while waiting().
  boost::asio::awaitable<Reply> receive(InputSource& input);
  /// Sends it 'l' (Steps::relay) and then `input` (its --relay mode: a relay's setup and what
  /// follows), what it replies after its listing going to `io` as it comes (a relay's member or a
  /// direct link, whose replies steer the link): the command's result. Only while waiting().
  boost::asio::awaitable<HostResult> run(InputSource& input, JobIo& io);
  /// Closes its stdin (nothing to receive) and waits for its end. A no-op once it has ended.
  boost::asio::awaitable<void> release();

  struct State;  // what the command's coroutine shares (held_agent.cpp)

 private:
  // Until `done` (or the command's end); what the command's coroutine threw, rethrown.
  boost::asio::awaitable<void> until(bool State::*done);

  Session& session_;
  StopSignal& stop_;
  Steps steps_ = kReceive;
  std::shared_ptr<State> state_;  // shared with the command's coroutine
};

/// Whether host `job`'s agent may stay after its first reply (HeldAgent): where no -u limits each
/// command's time (the one that stays would count the wave's wait).
inline bool held_agent_for(const Job& job) {
  return job.command_timeout.count() == 0;
}

/// The agent's --relay mode on one host: through `held` where it waits (HeldAgent::run), else
/// `request` (its --relay command) run on `session`; what it replies going to `io` as it comes.
boost::asio::awaitable<HostResult> run_relay_mode(Session& session, const ExecRequest& request,
                                                  JobIo& io, HeldAgent* held, StopSignal& stop);

}  // namespace pdx
