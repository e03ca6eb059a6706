// One command on an open ssh connection, as a coroutine on the host's strand. Its states, top
// to bottom in run():
//
//   exec          open a channel, start the command           -+
//     |           (a long command goes ahead of stdin)         |
//   stream        stdin out, stdout and stderr in, until EOF   |  command deadline (-u)
//     |                                                        |
//   exit          wait for the close: exit status or signal   -+
//     |
//   kill          only if exec..exit failed: a second channel kills the command on the host
//     |           (kill deadline)
//   free          the channel, once closed; the connection's next channel may follow. After a
//                 failure the connection is spent and frees the channel when it closes
//
// A deadline, Ctrl-C or a stalled stdin aborts the connection's SshWaiter: the wait in progress
// ends with operation_aborted and the step reports the abort's Failure.
// Every handler runs on the host's strand, so the channel's state needs no lock.
#include "transport/ssh_channel.h"

#include <poll.h>
#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "transport/input_source.h"
#include "transport/remote_command.h"

namespace pdx {
namespace asio = boost::asio;

namespace {

// Remote window per channel: what libssh2 may queue for a host we have not read yet. Small
// enough that 512 hosts streaming at once stay bounded, large enough to fill a loopback link.
constexpr unsigned kWindow = 256 * 1024;
constexpr std::size_t kReadSize = 32 * 1024;
constexpr std::size_t kWriteSize = 32 * 1024;
// How much one host may deliver before letting the other hosts of its thread run.
constexpr std::size_t kFairShare = 1024 * 1024;
// How long a cut-short command's host is given to kill it (kill_command()).
constexpr std::chrono::seconds kKillTime{2};
// Run by the user's shell on the host; $PPID is sshd's session process, fixed at the shell's
// start (never 1: that would be every daemon's parent).
constexpr std::string_view kKillCommand =
    "exec /bin/sh -c '[ \"$PPID\" -gt 1 ] && for p in $(pgrep -P \"$PPID\"); do "
    "[ \"$p\" = $$ ] || kill -s KILL -- \"-$p\"; done 2>/dev/null'";

// True if a libssh2 call that returned `rc` left a packet half in the socket: libssh2 then needs
// that same call again before any other that sends. It says so with EAGAIN and OUTBOUND (set when
// a send stops short, cleared once the packet is out).
bool half_sent(LIBSSH2_SESSION* session, long rc) {
  return rc == LIBSSH2_ERROR_EAGAIN &&
         (libssh2_session_block_directions(session) & LIBSSH2_SESSION_BLOCK_OUTBOUND);
}

// True if a small packet sent now would be held whole (ssh_io.h) or go out whole.
bool room_for_small_packet(SshWaiter& waiter) {
  constexpr std::size_t kSmallPacket = 256;
  if (waiter.context().io.can_hold(kSmallPacket)) return true;
  pollfd ready{waiter.socket().native_handle(), POLLOUT, 0};
  return ::poll(&ready, 1, 0) == 1 && (ready.revents & POLLOUT);
}

}  // namespace

ExecLine exec_line(const std::string& command) {
  if (command.size() <= kMaxExecCommand) return {command, ""};
  return {"eval \"$(head -c " + std::to_string(command.size()) + ")\"", command};
}

SshChannel::SshChannel(std::shared_ptr<SshConnection> connection, std::size_t index,
                       const ExecRequest& request, JobIo& io)
    : connection_(std::move(connection)),
      waiter_(connection_->waiter()),
      session_(waiter_.session()),
      strand_(connection_->strand()),
      index_(index),
      request_(request),
      io_(io),
      input_source_(request.input),
      input_done_(!input_source_) {}

asio::awaitable<HostResult> SshChannel::run(StopSignal& stop) {
  connection_->abort_on(stop);
  if (input_source_) {
    input_source_->on_stall([weak = weak_from_this(), strand = strand_](const std::string& why) {
      asio::post(strand, [weak, why] {
        if (auto self = weak.lock()) self->connection_->abort(Failure::stalled, why);
      });
    });
  }
  HostResult result;
  Step failed = connection_->spent();
  if (!failed && stop.stopped()) failed = StepFailure{Failure::interrupted, "interrupted"};
  if (!failed) connection_->arm_deadline(request_.timeout, Failure::command_timeout, "command");
  if (!failed) failed = co_await exec();
  if (!failed) failed = co_await stream();
  if (!failed) failed = co_await collect_exit(result);
  if (failed && command_running_) co_await kill_command();
  connection_->arm_deadline(std::chrono::milliseconds(0), Failure::none, "");
  if (input_source_) input_source_->finish();
  if (failed) {
    connection_->spend(*failed);  // the connection's state is not known: nothing more runs on it
    result.failure = failed->failure;
    result.error = std::move(failed->error);
    co_return result;
  }
  long rc = co_await ssh_call(waiter_, [this] { return libssh2_channel_free(channel_); });
  if (rc != 0) connection_->spend(waiter_.failure(rc, "closing a channel"));
  co_return result;
}

asio::awaitable<Step> SshChannel::exec() {
  long rc = 0;
  channel_ = co_await ssh_call_ptr(waiter_, rc, [this] {
    return libssh2_channel_open_ex(session_, "session", 7, kWindow, LIBSSH2_CHANNEL_PACKET_DEFAULT,
                                   nullptr, 0);
  });
  if (!channel_) co_return waiter_.failure(rc, "cannot open a channel");
  line_ = exec_line(remote_command(request_));
  const std::string& command = line_.request;
  command_running_ = true;  // from the request on: the reply may be what never comes
  if (!line_.ahead_of_stdin.empty()) {
    input_ = line_.ahead_of_stdin;
    input_is_line_ = true;
  }
  bool no_input = input_.empty() && input_done_;
  rc = co_await ssh_call(waiter_, [&] {
    int status = libssh2_channel_process_startup(channel_, "exec", 4, command.data(),
                                                 static_cast<unsigned>(command.size()));
    // With no stdin, the EOF follows the request at once, held with it (ssh_io.h): one segment,
    // one wakeup of the server. Only once the request is out whole (libssh2 1.10 then allows
    // another packet) and while the EOF would go out whole (see send_eof()).
    if (status == LIBSSH2_ERROR_EAGAIN && no_input && !eof_sent_ && !half_sent(session_, status) &&
        room_for_small_packet(waiter_))
      eof_sent_ = libssh2_channel_send_eof(channel_) == 0;
    return status;
  });
  if (rc != 0) co_return waiter_.failure(rc, "cannot start the command");
  co_return Step{};
}

// stdin goes out while stdout and stderr come in, so a command that reads and writes a lot at
// once cannot deadlock with us. Ends at the channel's EOF.
//
// The invariant: while a libssh2 call has left a packet half in the socket (pending_), the only
// libssh2 call made is that same one, once the socket is writable again. libssh2 1.10 requires
// it: the next call that sends, whichever it is, first finishes the half-sent packet and then
// returns as if its own had gone out. A stdin write after a read's half-sent window adjust would
// lose up to kWriteSize of stdin; a read after a half-sent EOF would lose the window adjust and
// stall the channel. A step repeats its call exactly: its state only changes when a call
// succeeds.
asio::awaitable<Step> SshChannel::stream() {
  static constexpr StreamStep kSteps[] = {&SshChannel::send_stdin, &SshChannel::send_eof,
                                          &SshChannel::drain_stdout, &SshChannel::drain_stderr};
  for (;;) {
    StreamPass pass;
    if (pending_) {  // waiter_.wait() waits for writable: libssh2 says OUTBOUND
      if (!co_await waiter_.wait()) co_return waiter_.failure(kWaitAborted, "");
      if (Step failed = run_step(pending_, pass)) co_return failed;
      continue;
    }
    for (StreamStep step : kSteps) {
      if (Step failed = run_step(step, pass)) co_return failed;
      if (pending_) break;
    }
    if (pending_) continue;
    switch (next_after(pass)) {
      case Next::again:
        continue;
      case Next::ended:
        co_return Step{};
      case Next::yield:       // let the thread's other hosts run
        waiter_.send_held();  // window adjusts, say: the server may be waiting for them
        co_await asio::post(strand_, asio::use_awaitable);
        if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
        continue;
      case Next::wait:
        if (!co_await waiter_.wait()) co_return waiter_.failure(kWaitAborted, "");
        continue;
      case Next::wait_writable:
        if (!co_await waiter_.wait(SshWaiter::Until::writable))
          co_return waiter_.failure(kWaitAborted, "");
        continue;
    }
  }
}

Step SshChannel::run_step(StreamStep step, StreamPass& pass) {
  pass.half_sent = false;
  Step failed = (this->*step)(pass);
  pending_ = !failed && pass.half_sent ? step : nullptr;
  return failed;
}

// stdin as its source hands it out. When it has nothing yet, it wakes the connection's wait
// once it has (a cancelled socket wait is only a wakeup).
Step SshChannel::send_stdin(StreamPass& pass) {
  if (input_.empty() && !input_done_) {
    auto piece = input_source_->next();
    switch (piece.state) {
      case InputPiece::State::data:
        input_ = piece.bytes;
        break;
      case InputPiece::State::end:
        input_done_ = true;
        return Step{};
      case InputPiece::State::failed:
        input_done_ = true;
        return StepFailure{Failure::local, piece.error};
      case InputPiece::State::wait:
        if (!input_wake_armed_) {
          input_wake_armed_ = true;
          input_source_->on_ready([weak = weak_from_this(), strand = strand_] {
            asio::post(strand, [weak] {
              if (auto self = weak.lock()) {
                self->input_wake_armed_ = false;
                boost::system::error_code ignored;
                self->waiter_.socket().cancel(ignored);
              }
            });
          });
        }
        return Step{};
    }
  }
  if (input_.empty()) return Step{};
  auto n = libssh2_channel_write(channel_, input_.data(), std::min(input_.size(), kWriteSize));
  pass.half_sent = half_sent(session_, n);
  if (n > 0) {
    input_.remove_prefix(static_cast<std::size_t>(n));
    if (!input_is_line_) input_source_->consume(static_cast<std::size_t>(n));
    input_is_line_ = input_is_line_ && !input_.empty();
    pass.progress = true;
  } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
    input_ = {};  // the command closed its stdin
    input_done_ = true;
  }
  return Step{};
}

// Once stdin is all out, and only while there is room for the packet: libssh2 1.10 builds
// the EOF packet on its stack, so a repeat after a half send would pass a different buffer, be
// refused (LIBSSH2_ERROR_BAD_USE, reported as a send error) and leave the packet stuck, failing
// every later send. A small packet on a writable TCP socket goes out whole. If it was half sent
// all the same, its repeat's failure is reported; otherwise a failure only means the command is
// gone or no longer reads: nothing to tell.
Step SshChannel::send_eof(StreamPass& pass) {
  if (!input_.empty() || !input_done_ || eof_sent_) return Step{};
  bool repeat = pending_ == &SshChannel::send_eof;
  if (!repeat && !room_for_small_packet(waiter_)) {
    pass.eof_waits = true;
    return Step{};
  }
  int rc = libssh2_channel_send_eof(channel_);
  pass.half_sent = half_sent(session_, rc);
  if (rc == LIBSSH2_ERROR_EAGAIN) return Step{};
  if (rc != 0 && repeat) return waiter_.failure(rc, "sending end of input");
  eof_sent_ = pass.progress = true;
  return Step{};
}

Step SshChannel::drain_stdout(StreamPass& pass) {
  return drain(Stream::out, pass);
}

Step SshChannel::drain_stderr(StreamPass& pass) {
  return drain(Stream::err, pass);
}

// Reads what `stream` has queued and hands it to io_ as it comes: a host printing 100 MB never
// has more than kReadSize of it here. Stops at EAGAIN (perhaps with a window adjust half sent)
// and at the fair share.
Step SshChannel::drain(Stream stream, StreamPass& pass) {
  thread_local char buffer[kReadSize];  // shared by the thread's sessions: output is not kept
  int id = stream == Stream::err ? SSH_EXTENDED_DATA_STDERR : 0;
  for (std::size_t total = 0; total < kFairShare;) {
    auto n = libssh2_channel_read_ex(channel_, id, buffer, sizeof buffer);
    if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) return waiter_.failure(n, "reading output");
    // A read may also succeed with a packet of its own half sent (a reply to the server): the
    // next read, the same call, finishes it.
    pass.half_sent = half_sent(session_, n > 0 ? LIBSSH2_ERROR_EAGAIN : n);
    if (n <= 0) return Step{};
    io_.output(index_, stream, std::string_view(buffer, static_cast<std::size_t>(n)));
    total += static_cast<std::size_t>(n);
    pass.progress = true;
    if (pass.half_sent) return Step{};
  }
  pass.more = true;
  return Step{};
}

// After a pass that left nothing half sent: what stream() does next.
SshChannel::Next SshChannel::next_after(const StreamPass& pass) const {
  if (pass.more) return Next::yield;
  if (pass.progress) return Next::again;
  if (libssh2_channel_eof(channel_)) return Next::ended;
  if (pass.eof_waits) return Next::wait_writable;
  // Reading stderr may have queued stdout packets that arrived meanwhile: the socket would not
  // wake us for those.
  if (libssh2_poll_channel_read(channel_, 1)) return Next::again;
  return Next::wait;
}

asio::awaitable<Step> SshChannel::collect_exit(HostResult& result) {
  // The exit status may follow the EOF: wait for the server to close the channel.
  long rc = co_await ssh_call(waiter_, [this] { return libssh2_channel_wait_closed(channel_); });
  if (rc != 0) co_return waiter_.failure(rc, "waiting for the command to end");
  command_running_ = false;
  result.exit_status = libssh2_channel_get_exit_status(channel_);
  char* signal = nullptr;
  std::size_t size = 0;
  libssh2_channel_get_exit_signal(channel_, &signal, &size, nullptr, nullptr, nullptr, nullptr);
  if (signal) {
    result.signal.assign(signal, size);
    libssh2_free(session_, signal);
  }
  co_return Step{};
}

// Ctrl-C, -u or a failure ended the channel while its command may still run on the host: kill
// it there, as -R exec kills its local process group. libssh2 1.10 cannot send the "signal"
// request once a channel's command started ("Channel can not be reused"), so a second channel
// runs kKillCommand: its shell's parent is this connection's sshd, whose other children lead the
// process groups of this connection's commands (sshd gives each its own session). Bounded by
// kKillTime; a host that does not answer is left as it is.
asio::awaitable<void> SshChannel::kill_command() {
  waiter_.resume();
  connection_->arm_deadline(kKillTime, Failure::interrupted, "killing the command");
  StreamPass pass;
  while (pending_) {  // no co_await inside && here: GCC 12 evaluates it either way
    if (!co_await waiter_.wait() || run_step(pending_, pass)) co_return;
  }
  long rc = 0;
  LIBSSH2_CHANNEL* killer = co_await ssh_call_ptr(waiter_, rc, [this] {
    return libssh2_channel_open_ex(session_, "session", 7, LIBSSH2_CHANNEL_WINDOW_DEFAULT,
                                   LIBSSH2_CHANNEL_PACKET_DEFAULT, nullptr, 0);
  });
  if (!killer) co_return;
  rc = co_await ssh_call(waiter_, [&] {
    return libssh2_channel_process_startup(killer, "exec", 4, kKillCommand.data(),
                                           static_cast<unsigned>(kKillCommand.size()));
  });
  // Waited for: once this connection ends, its commands no longer have sshd as their parent.
  if (rc == 0) co_await ssh_call(waiter_, [&] { return libssh2_channel_wait_eof(killer); });
  libssh2_channel_free(killer);
}

asio::awaitable<Step> answer_round_trip(std::shared_ptr<SshConnection> connection,
                                        std::chrono::milliseconds limit) {
  if (Step spent = connection->spent()) co_return spent;
  SshWaiter& waiter = connection->waiter();
  LIBSSH2_SESSION* session = waiter.session();
  connection->arm_deadline(limit, Failure::protocol, "keepalive");
  long rc = 0;
  LIBSSH2_CHANNEL* channel = co_await ssh_call_ptr(waiter, rc, [session] {
    return libssh2_channel_open_ex(session, "session", 7, LIBSSH2_CHANNEL_WINDOW_DEFAULT,
                                   LIBSSH2_CHANNEL_PACKET_DEFAULT, nullptr, 0);
  });
  if (channel) rc = co_await ssh_call(waiter, [channel] { return libssh2_channel_free(channel); });
  connection->arm_deadline(std::chrono::milliseconds(0), Failure::none, "");
  Step failed;
  if (!channel || rc != 0) {
    failed = waiter.failure(rc, "keepalive");
    connection->spend(*failed);
  }
  co_return failed;
}

}  // namespace pdx
