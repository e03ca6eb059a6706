// One host's session as a coroutine. Its states, top to bottom in run():
//
//   connect ----> handshake ----> host key ----> authenticate ----> exec ----> stream
//   (resolve,      (kex, libssh2   (known_hosts,   (agent, keys,      (open      (stdin out,
//    TCP)           takes socket)   policy)         password)          channel)   stdout/err in)
//      |              |               |                |                 |          |
//      |   connect deadline (-t) covers all of these   |                 |  command deadline (-u)
//      |              |               |                |                 |          |
//      |              |               | refused:       |                 |          v
//      |              |               | nothing runs   |                 |     exit status
//      v              v               v                v                 v     (wait close)
//   +---------------------------------------------------------------------------------+
//   | close: disconnect, shutdown the socket, free channel and session (never waits)  |
//   +---------------------------------------------------------------------------------+
//
// A deadline or Ctrl-C (StopSignal) aborts the SshWaiter: the wait in progress ends with
// operation_aborted and the step reports the abort's Failure; close() then runs as always.
// Every handler runs on the host's strand, so the session's state needs no lock.
#include "transport/ssh_session.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>

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

}  // namespace

std::string format_seconds(std::chrono::milliseconds d) {
  char text[32];
  if (d.count() % 1000 == 0)
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(d.count() / 1000));
  else
    std::snprintf(text, sizeof text, "%.3gs", static_cast<double>(d.count()) / 1000.0);
  return text;
}

HostSession::HostSession(HostPlan plan, const Job& job, JobIo& io, Credentials& credentials,
                         asio::any_io_executor strand)
    : plan_(std::move(plan)),
      job_(job),
      io_(io),
      credentials_(credentials),
      waiter_(tcp::socket(strand)),
      resolver_(strand),
      deadline_(strand) {}

HostSession::~HostSession() {
  close();
}

asio::awaitable<HostResult> HostSession::run(StopSignal& stop) {
  auto started = std::chrono::steady_clock::now();
  stop.on_stop([weak = weak_from_this(), strand = deadline_.get_executor()] {
    asio::post(strand, [weak] {
      if (auto self = weak.lock()) self->abort(Failure::interrupted, "interrupted");
    });
  });
  HostResult result;
  arm_deadline(plan_.connect_timeout, Failure::connect_timeout, "connect");
  Step failed = co_await connect();
  if (!failed) failed = co_await handshake();
  if (!failed) failed = verify_host_key();
  if (!failed) failed = co_await authenticate(waiter_, credentials_, plan_.auth);
  if (!failed) failed = co_await exec();
  if (!failed) arm_deadline(job_.command_timeout, Failure::command_timeout, "command");
  if (!failed) failed = co_await stream();
  if (!failed) failed = co_await collect_exit(result);
  if (failed) {
    result.failure = failed->failure;
    result.error = std::move(failed->error);
  }
  close();
  result.duration = std::chrono::steady_clock::now() - started;
  co_return result;
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
    if (ec)
      co_return StepFailure{Failure::connect,
                            "cannot resolve " + plan_.hostname + ": " + ec.message()};
    for (const auto& entry : found) endpoints.push_back(entry.endpoint());
  }
  co_await asio::async_connect(waiter_.socket(), endpoints,
                               asio::redirect_error(asio::use_awaitable, ec));
  if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
  if (ec)
    co_return StepFailure{Failure::connect, "connect to " + plan_.hostname + " port " +
                                                std::to_string(plan_.port) + ": " + ec.message()};
  waiter_.socket().non_blocking(true);
  waiter_.socket().set_option(tcp::no_delay(true), ec);  // small packets: don't wait for acks
  co_return Step{};
}

asio::awaitable<Step> HostSession::handshake() {
  session_ = libssh2_session_init();
  if (!session_) co_return StepFailure{Failure::local, "cannot create an ssh session"};
  waiter_.set_session(session_);
  libssh2_session_set_blocking(session_, 0);
  const std::pair<int, const std::string*> preferences[] = {
      {LIBSSH2_METHOD_KEX, &plan_.kex_algorithms},
      {LIBSSH2_METHOD_HOSTKEY, &plan_.host_key_algorithms},
      {LIBSSH2_METHOD_CRYPT_CS, &plan_.ciphers},
      {LIBSSH2_METHOD_CRYPT_SC, &plan_.ciphers},
      {LIBSSH2_METHOD_MAC_CS, &plan_.macs},
      {LIBSSH2_METHOD_MAC_SC, &plan_.macs}};
  for (const auto& [method, list] : preferences)
    if (!list->empty() && libssh2_session_method_pref(session_, method, list->c_str()) != 0)
      co_return StepFailure{Failure::local, "none of '" + *list + "' is supported by libssh2"};
  long rc = co_await ssh_call(waiter_, [this] {
    return libssh2_session_handshake(session_, waiter_.socket().native_handle());
  });
  if (rc != 0) co_return waiter_.failure(rc, "ssh handshake");
  handshaken_ = true;
  co_return Step{};
}

Step HostSession::verify_host_key() {
  std::size_t size = 0;
  int type = 0;
  const char* key = libssh2_session_hostkey(session_, &size, &type);
  if (!key) return StepFailure{Failure::host_key, "the server sent no host key"};
  auto verdict = plan_.known_hosts->verify(
      plan_.hostname, plan_.port, HostKey{std::string_view(key, size), type}, plan_.policy);
  if (!verdict) return StepFailure{Failure::host_key, verdict.error()};
  return Step{};
}

asio::awaitable<Step> HostSession::exec() {
  long rc = 0;
  channel_ = co_await ssh_call_ptr(waiter_, rc, [this] {
    return libssh2_channel_open_ex(session_, "session", 7, kWindow, LIBSSH2_CHANNEL_PACKET_DEFAULT,
                                   nullptr, 0);
  });
  if (!channel_) co_return waiter_.failure(rc, "cannot open a channel");
  const std::string& command = job_.command;
  rc = co_await ssh_call(waiter_, [&] {
    return libssh2_channel_process_startup(channel_, "exec", 4, command.data(),
                                           static_cast<unsigned>(command.size()));
  });
  if (rc != 0) co_return waiter_.failure(rc, "cannot start the command");
  co_return Step{};
}

// Reads what `stream` has queued and hands it to io_ as it comes: a host printing 100 MB
// never has more than kReadSize of it here. `more`: stopped at the fair share, not at EAGAIN.
long HostSession::deliver(Stream stream, bool& more) {
  thread_local char buffer[kReadSize];  // shared by the thread's sessions: output is not kept
  int id = stream == Stream::err ? SSH_EXTENDED_DATA_STDERR : 0;
  std::size_t total = 0;
  while (total < kFairShare) {
    auto n = libssh2_channel_read_ex(channel_, id, buffer, sizeof buffer);
    if (n <= 0) return n == LIBSSH2_ERROR_EAGAIN || n == 0 ? static_cast<long>(total) : n;
    io_.output(job_.index, stream, std::string_view(buffer, static_cast<std::size_t>(n)));
    total += static_cast<std::size_t>(n);
  }
  more = true;
  return static_cast<long>(total);
}

// stdin goes out while stdout and stderr come in, so a command that reads and writes a lot
// at once cannot deadlock with us. Ends at the channel's EOF.
asio::awaitable<Step> HostSession::stream() {
  std::string_view input = job_.stdin_data ? std::string_view(*job_.stdin_data) : "";
  bool eof_sent = false;
  for (;;) {
    bool progress = false, more = false;
    if (!input.empty()) {
      auto n = libssh2_channel_write(channel_, input.data(), std::min(input.size(), kWriteSize));
      if (n > 0)
        input.remove_prefix(static_cast<std::size_t>(n)), progress = true;
      else if (n != LIBSSH2_ERROR_EAGAIN)
        input = {};  // the command closed its stdin
      // A packet half in the socket must be finished before libssh2 may send another (a
      // window adjust from a read): wait for the socket to drain first.
      else if (libssh2_session_block_directions(session_) & LIBSSH2_SESSION_BLOCK_OUTBOUND) {
        if (!co_await waiter_.wait()) co_return waiter_.failure(kWaitAborted, "");
        continue;
      }
    }
    if (input.empty() && !eof_sent && libssh2_channel_send_eof(channel_) != LIBSSH2_ERROR_EAGAIN)
      eof_sent = progress = true;
    for (Stream s : {Stream::out, Stream::err}) {
      long n = deliver(s, more);
      if (n < 0) co_return waiter_.failure(n, "reading output");
      progress = progress || n > 0;
    }
    if (more) {
      co_await asio::post(deadline_.get_executor(), asio::use_awaitable);
      if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
    } else if (!progress) {
      if (libssh2_channel_eof(channel_)) co_return Step{};
      // Reading stderr may have queued stdout packets that arrived meanwhile: the socket would
      // not wake us for those.
      if (libssh2_poll_channel_read(channel_, 1)) continue;
      if (!co_await waiter_.wait()) co_return waiter_.failure(kWaitAborted, "");
    }
  }
}

asio::awaitable<Step> HostSession::collect_exit(HostResult& result) {
  // The exit status may follow the EOF: wait for the server to close the channel.
  long rc = co_await ssh_call(waiter_, [this] { return libssh2_channel_wait_closed(channel_); });
  if (rc != 0) co_return waiter_.failure(rc, "waiting for the command to end");
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

// Never waits: a disconnect message if the session is up, then the socket is shut down so that
// whatever libssh2 still wants to send or read fails at once instead of asking to wait, and
// everything is freed. The socket is closed (by ~SshWaiter) only after libssh2 let go of it, so
// its descriptor cannot be reused under a live session.
void HostSession::close() {
  ++deadline_generation_;
  deadline_.cancel();
  if (session_ && handshaken_) libssh2_session_disconnect(session_, "done");
  boost::system::error_code ignored;
  waiter_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  if (channel_) libssh2_channel_free(channel_);
  if (session_) libssh2_session_free(session_);
  channel_ = nullptr;
  session_ = nullptr;
  waiter_.set_session(nullptr);
}

}  // namespace pdx
