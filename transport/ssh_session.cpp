// One host's session as coroutines: open() sets it up, then exec() runs commands on it, one after
// the other. Its states, top to bottom:
//
//   queued        wait for a slot: at most kSetupLimit sessions set up at once
//     |
//   connect       resolve, TCP connect                        -+
//     |                                                        |
//   handshake     key exchange; from here libssh2 owns the     |
//     |           socket's bytes                               |  connect deadline (-t)
//   host key      known_hosts + StrictHostKeyChecking;         |
//     |           refused: nothing runs                        |
//   authenticate  agent, identity files, --askpass password   -+  then the slot is given back
//     |
//   exec          open a channel, start the command           -+
//     |                                                        |  command deadline (-u)
//   stream        stdin out, stdout and stderr in, until EOF   |
//     |                                                        |
//   exit          wait for the close: exit status or signal   -+
//     |
//   kill          only if exec..exit failed: a second channel kills the command on the host
//     |           (kill deadline)
//   close         from any state, failed or not: disconnect, shut the socket down, free the
//                 channel and the session; never waits
//
// A deadline or Ctrl-C (StopSignal) aborts the SshWaiter: the wait in progress ends with
// operation_aborted and the step reports the abort's Failure; kill and close() then run as
// always.
// Every handler runs on the host's strand, so the session's state needs no lock.
#include "transport/ssh_session.h"

#include <poll.h>
#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>
#include <vector>

#include "transport/input_source.h"
#include "transport/seconds.h"
#include "transport/ssh_config.h"
#include "transport/ssh_wiping_session.h"

namespace pdx {
namespace asio = boost::asio;
using asio::ip::tcp;

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

// libssh2's algorithms for `method`, in its order of preference, comma-separated.
std::string supported_algorithms(LIBSSH2_SESSION* session, int method) {
  const char** algorithms = nullptr;
  int count = libssh2_session_supported_algs(session, method, &algorithms);
  std::string joined;
  for (int i = 0; i < count; ++i) joined += (i ? "," : "") + std::string(algorithms[i]);
  if (count > 0) libssh2_free(session, algorithms);
  return joined;
}

std::vector<std::string> split_commas(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    auto comma = list.find(',');
    if (auto name = list.substr(0, comma); !name.empty()) names.emplace_back(name);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
  return names;
}

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

std::string apply_algorithm_list(std::string_view defaults, std::string_view list) {
  char prefix = list.empty() ? '\0' : list.front();
  if (prefix != '+' && prefix != '-' && prefix != '^') return std::string(list);
  auto named = split_commas(list.substr(1));
  auto named_has = [&named](const std::string& name) {
    for (const auto& n : named)
      if (n == name) return true;
    return false;
  };
  std::vector<std::string> result;
  if (prefix == '^') result = named;
  for (auto& name : split_commas(defaults)) {
    bool keep = prefix == '-' ? !host_matches(name, named) : !named_has(name);
    if (keep || prefix == '+') result.push_back(std::move(name));
  }
  if (prefix == '+') {
    for (const auto& name : named)
      if (std::find(result.begin(), result.end(), name) == result.end()) result.push_back(name);
  }
  std::string joined;
  for (const auto& name : result) joined += (joined.empty() ? "" : ",") + name;
  return joined;
}

ExecLine exec_line(const std::string& command) {
  if (command.size() <= kMaxExecCommand) return {command, ""};
  return {"eval \"$(head -c " + std::to_string(command.size()) + ")\"", command};
}

std::string supported_only(std::string_view list, std::string_view supported) {
  auto known = split_commas(supported);
  std::string kept;
  for (const auto& name : split_commas(list))
    if (std::find(known.begin(), known.end(), name) != known.end())
      kept += (kept.empty() ? "" : ",") + name;
  return kept;
}

HostSession::HostSession(HostPlan plan, std::size_t index, Credentials& credentials,
                         SetupGate& gate, asio::any_io_executor strand)
    : plan_(std::move(plan)),
      index_(index),
      credentials_(credentials),
      gate_(gate),
      waiter_(tcp::socket(strand)),
      resolver_(strand),
      deadline_(strand),
      admission_(strand) {}

HostSession::~HostSession() {
  close();
}

void HostSession::abort_on(StopSignal& stop) {
  if (&stop == stop_) return;  // already registered
  stop_ = &stop;
  stop.on_stop([weak = weak_from_this(), strand = deadline_.get_executor()] {
    asio::post(strand, [weak] {
      if (auto self = weak.lock()) self->abort(Failure::interrupted, "interrupted");
    });
  });
}

asio::awaitable<Step> HostSession::open(StopSignal& stop) {
  abort_on(stop);
  Step failed = co_await enter_gate();
  if (!failed) arm_deadline(plan_.connect_timeout, Failure::connect_timeout, "connect");
  if (!failed) failed = co_await connect();
  if (!failed) failed = co_await handshake();
  if (!failed) failed = verify_host_key();
  if (!failed) failed = co_await authenticate(waiter_, credentials_, plan_.auth);
  leave_gate();
  arm_deadline(std::chrono::milliseconds(0), Failure::none, "");
  if (failed) spent_ = failed;
  co_return failed;
}

asio::awaitable<HostResult> HostSession::exec(const ExecRequest& request, JobIo& io,
                                              StopSignal& stop) {
  abort_on(stop);
  start_operation(request, io);
  HostResult result;
  Step failed = spent_;
  if (!failed && stop.stopped()) failed = StepFailure{Failure::interrupted, "interrupted"};
  if (!failed) arm_deadline(request.timeout, Failure::command_timeout, "command");
  if (!failed) failed = co_await start_command(request.command);
  if (!failed) failed = co_await stream();
  if (!failed) failed = co_await collect_exit(result);
  if (failed && command_running_) co_await kill_command();
  arm_deadline(std::chrono::milliseconds(0), Failure::none, "");
  if (input_source_) input_source_->finish();
  if (failed) {
    spent_ = failed;  // the connection's state is not known: nothing more runs on it
    result.failure = failed->failure;
    result.error = std::move(failed->error);
    co_return result;
  }
  long rc = co_await ssh_call(waiter_, [this] { return libssh2_channel_free(channel_); });
  if (rc == 0)
    channel_ = nullptr;
  else
    spent_ = waiter_.failure(rc, "closing a channel");
  co_return result;
}

// A new operation's state; `++operation_` so that a stall reported for an earlier one is ignored.
void HostSession::start_operation(const ExecRequest& request, JobIo& io) {
  io_ = &io;
  input_source_ = request.input;
  input_done_ = !input_source_;
  input_wake_armed_ = false;
  line_ = {};
  input_is_line_ = false;
  input_ = {};
  command_running_ = false;
  eof_sent_ = false;
  pending_ = nullptr;
  if (!input_source_) return;
  input_source_->on_stall([weak = weak_from_this(), strand = deadline_.get_executor(),
                           operation = ++operation_](const std::string& why) {
    asio::post(strand, [weak, why, operation] {
      if (auto self = weak.lock(); self && self->operation_ == operation)
        self->abort(Failure::stalled, why);
    });
  });
}

void HostSession::arm_deadline(std::chrono::milliseconds after, Failure failure, const char* what) {
  ++deadline_generation_;
  deadline_.cancel();
  if (after.count() <= 0) return;
  deadline_.expires_after(after);
  deadline_.async_wait([self = shared_from_this(), generation = deadline_generation_, failure,
                        error = std::string(what) + " timed out after " +
                                format_seconds(after)](boost::system::error_code ec) {
    if (!ec && generation == self->deadline_generation_) self->abort(failure, error);
  });
}

void HostSession::abort(Failure failure, std::string error) {
  waiter_.abort(failure, std::move(error));
  resolver_.cancel();
  admission_.cancel();
}

// The connect deadline starts once admitted: time spent queued is pdx's, not the host's.
asio::awaitable<Step> HostSession::enter_gate() {
  holds_slot_ = holds_descriptors_ = gate_.enter([self = shared_from_this()] {
    asio::post(self->admission_.get_executor(), [self] {
      if (self->finished_) return self->gate_.leave(false);
      self->holds_slot_ = self->holds_descriptors_ = true;
      self->admission_.cancel();
    });
  });
  if (!holds_slot_) {
    admission_.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    co_await admission_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
  co_return Step{};
}

void HostSession::leave_gate() {
  if (holds_slot_) gate_.set_up();
  holds_slot_ = false;
}

asio::awaitable<Step> HostSession::connect() {
  boost::system::error_code ec;
  std::vector<tcp::endpoint> endpoints;
  auto address = asio::ip::make_address(plan_.hostname, ec);
  if (!ec) {
    endpoints.emplace_back(address, static_cast<unsigned short>(plan_.port));
  } else {
    auto found = co_await resolver_.async_resolve(plan_.hostname, std::to_string(plan_.port),
                                                  asio::redirect_error(asio::use_awaitable, ec));
    if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
    if (ec) co_return StepFailure{Failure::connect, "cannot resolve: " + ec.message()};
    for (const auto& entry : found) endpoints.push_back(entry.endpoint());
  }
  tcp::endpoint peer = co_await asio::async_connect(waiter_.socket(), endpoints,
                                                    asio::redirect_error(asio::use_awaitable, ec));
  if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
  if (ec)
    co_return StepFailure{Failure::connect,
                          "connect to port " + std::to_string(plan_.port) + ": " + ec.message()};
  // Asio keeps a socket registered for writability once it has waited for it (the connect
  // did), and re-arms every later wait for reading with it: each wait would also report the
  // socket writable, waking a thread for nothing. Registered afresh, it waits for reading only.
  int fd = waiter_.socket().release(ec);
  if (!ec) waiter_.socket().assign(peer.protocol(), fd, ec);
  if (ec) co_return StepFailure{Failure::local, "cannot register the socket: " + ec.message()};
  waiter_.socket().non_blocking(true);
  waiter_.socket().set_option(tcp::no_delay(true), ec);  // small packets: don't wait for acks
  co_return Step{};
}

asio::awaitable<Step> HostSession::handshake() {
  session_ = credentials_.password().empty() ? libssh2_session_init() : new_wiping_session();
  if (!session_) co_return StepFailure{Failure::local, "cannot create an ssh session"};
  waiter_.set_session(session_);
  libssh2_session_set_blocking(session_, 0);
  use_pdx_io(session_);
  const std::pair<int, const std::string*> preferences[] = {
      {LIBSSH2_METHOD_KEX, &plan_.kex_algorithms},
      {LIBSSH2_METHOD_HOSTKEY, &plan_.host_key_algorithms},
      {LIBSSH2_METHOD_CRYPT_CS, &plan_.ciphers},
      {LIBSSH2_METHOD_CRYPT_SC, &plan_.ciphers},
      {LIBSSH2_METHOD_MAC_CS, &plan_.macs},
      {LIBSSH2_METHOD_MAC_SC, &plan_.macs}};
  for (const auto& [method, list] : preferences) {
    if (list->empty()) continue;
    std::string supported = supported_algorithms(session_, method);
    std::string wanted = supported_only(apply_algorithm_list(supported, *list), supported);
    if (wanted.empty() || libssh2_session_method_pref(session_, method, wanted.c_str()) != 0)
      co_return StepFailure{Failure::local, "none of '" + *list + "' is supported by libssh2"};
  }
  long rc = co_await ssh_call(waiter_, [this] {
    return libssh2_session_handshake(session_, waiter_.socket().native_handle());
  });
  if (rc == LIBSSH2_ERROR_KEX_FAILURE) {
    // Most often an OpenSSH >= 8.8 server with only an RSA host key: it signs with rsa-sha2-*,
    // which libssh2 1.10 does not know.
    auto failed = waiter_.failure(rc, "ssh handshake");
    failed.error +=
        " (no key exchange, host key, cipher or MAC algorithm in common; a server "
        "whose only host key is RSA needs HostKeyAlgorithms +ssh-rsa in its "
        "sshd_config: libssh2 1.10 has no rsa-sha2-256/512)";
    co_return failed;
  }
  if (rc != 0) co_return waiter_.failure(rc, "ssh handshake");
  handshaken_ = true;
  co_return Step{};
}

Step HostSession::verify_host_key() {
  std::size_t size = 0;
  int type = 0;
  const char* key = libssh2_session_hostkey(session_, &size, &type);
  if (!key) return StepFailure{Failure::host_key, "the server sent no host key"};
  auto verdict = plan_.known_hosts->verify(plan_.hostname, plan_.port,
                                           HostKey{std::string_view(key, size), type}, plan_.policy,
                                           plan_.hash_names);
  if (!verdict) return StepFailure{Failure::host_key, verdict.error()};
  return Step{};
}

asio::awaitable<Step> HostSession::start_command(const std::string& text) {
  long rc = 0;
  channel_ = co_await ssh_call_ptr(waiter_, rc, [this] {
    return libssh2_channel_open_ex(session_, "session", 7, kWindow, LIBSSH2_CHANNEL_PACKET_DEFAULT,
                                   nullptr, 0);
  });
  if (!channel_) co_return waiter_.failure(rc, "cannot open a channel");
  line_ = exec_line(text);
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
asio::awaitable<Step> HostSession::stream() {
  static constexpr StreamStep kSteps[] = {&HostSession::send_stdin, &HostSession::send_eof,
                                          &HostSession::drain_stdout, &HostSession::drain_stderr};
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
        co_await asio::post(deadline_.get_executor(), asio::use_awaitable);
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

Step HostSession::run_step(StreamStep step, StreamPass& pass) {
  pass.half_sent = false;
  Step failed = (this->*step)(pass);
  pending_ = !failed && pass.half_sent ? step : nullptr;
  return failed;
}

// stdin as the broadcast hands it out. When it has nothing yet, it wakes the session's wait
// once it has (a cancelled socket wait is only a wakeup).
Step HostSession::send_stdin(StreamPass& pass) {
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
          input_source_->on_ready([weak = weak_from_this(), strand = deadline_.get_executor()] {
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
Step HostSession::send_eof(StreamPass& pass) {
  if (!input_.empty() || !input_done_ || eof_sent_) return Step{};
  bool repeat = pending_ == &HostSession::send_eof;
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

Step HostSession::drain_stdout(StreamPass& pass) {
  return drain(Stream::out, pass);
}

Step HostSession::drain_stderr(StreamPass& pass) {
  return drain(Stream::err, pass);
}

// Reads what `stream` has queued and hands it to io_ as it comes: a host printing 100 MB never
// has more than kReadSize of it here. Stops at EAGAIN (perhaps with a window adjust half sent)
// and at the fair share.
Step HostSession::drain(Stream stream, StreamPass& pass) {
  thread_local char buffer[kReadSize];  // shared by the thread's sessions: output is not kept
  int id = stream == Stream::err ? SSH_EXTENDED_DATA_STDERR : 0;
  for (std::size_t total = 0; total < kFairShare;) {
    auto n = libssh2_channel_read_ex(channel_, id, buffer, sizeof buffer);
    if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) return waiter_.failure(n, "reading output");
    // A read may also succeed with a packet of its own half sent (a reply to the server): the
    // next read, the same call, finishes it.
    pass.half_sent = half_sent(session_, n > 0 ? LIBSSH2_ERROR_EAGAIN : n);
    if (n <= 0) return Step{};
    io_->output(index_, stream, std::string_view(buffer, static_cast<std::size_t>(n)));
    total += static_cast<std::size_t>(n);
    pass.progress = true;
    if (pass.half_sent) return Step{};
  }
  pass.more = true;
  return Step{};
}

// After a pass that left nothing half sent: what stream() does next.
HostSession::Next HostSession::next_after(const StreamPass& pass) const {
  if (pass.more) return Next::yield;
  if (pass.progress) return Next::again;
  if (libssh2_channel_eof(channel_)) return Next::ended;
  if (pass.eof_waits) return Next::wait_writable;
  // Reading stderr may have queued stdout packets that arrived meanwhile: the socket would not
  // wake us for those.
  if (libssh2_poll_channel_read(channel_, 1)) return Next::again;
  return Next::wait;
}

asio::awaitable<Step> HostSession::collect_exit(HostResult& result) {
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

// Ctrl-C, -u or a failure ended the session while its command may still run on the host: kill
// it there, as -R exec kills its local process group. libssh2 1.10 cannot send the "signal"
// request once a channel's command started ("Channel can not be reused"), so a second channel
// runs kKillCommand: its shell's parent is this connection's sshd, whose other children lead the
// process groups of this connection's commands (sshd gives each its own session). Bounded by
// kKillTime; a host that does not answer is left as it is.
asio::awaitable<void> HostSession::kill_command() {
  waiter_.resume();
  arm_deadline(kKillTime, Failure::interrupted, "killing the command");
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

// Never waits: a disconnect message if the session is up, sent with the FIN; then the socket is
// shut down so that whatever libssh2 still wants to send or read fails at once instead of asking
// to wait, and everything is freed. The socket is closed (by ~SshWaiter) only after libssh2 let go
// of it, so its descriptor cannot be reused under a live session.
void HostSession::close() {
  if (finished_) return;  // closed, and now the destructor
  finished_ = true;
  if (holds_descriptors_) gate_.leave(!holds_slot_);
  holds_slot_ = holds_descriptors_ = false;
  ++deadline_generation_;
  deadline_.cancel();
  if (session_ && handshaken_) libssh2_session_disconnect(session_, "done");
  waiter_.send_held(MSG_MORE);  // held back for the FIN: one segment, one wakeup of the server
  boost::system::error_code ignored;
  waiter_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  waiter_.context().io.shut_down();
  if (channel_) libssh2_channel_free(channel_);
  if (session_) libssh2_session_free(session_);
  channel_ = nullptr;
  session_ = nullptr;
  waiter_.set_session(nullptr);
}

}  // namespace pdx
