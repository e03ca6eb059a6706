#pragma once
// One host's ssh session: connect, handshake, host key, authentication, exec, stream output,
// exit status, close; written top to bottom as a coroutine on the host's strand.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "transport/known_hosts.h"
#include "transport/ssh_auth.h"
#include "transport/ssh_call.h"
#include "transport/ssh_gate.h"

namespace pdx {

/// Everything the session needs to know about its host, worked out from the command line and
/// ssh_config before it starts (ssh_transport.cpp).
struct HostPlan {
  std::string hostname;  // to connect to, and the name looked up in known_hosts
  int port = 22;
  AuthRequest auth;
  HostKeyPolicy policy = HostKeyPolicy::strict;
  HashNames hash_names = HashNames::no;  // how an accepted key's host is recorded
  std::shared_ptr<KnownHosts> known_hosts;
  std::chrono::milliseconds connect_timeout{0};                    // 0: none
  std::string kex_algorithms, host_key_algorithms, ciphers, macs;  // empty: libssh2's
};

/// libssh2 1.10 sends no packet over 35000 bytes, so an exec request carries at most about that
/// much command (OpenSSH's own client: 256 KB). DeepSpeed's exports make longer ones.
inline constexpr std::size_t kMaxExecCommand = 32 << 10;

/// What goes to the host for `command`: the exec request, and bytes to send ahead of stdin.
/// A command over kMaxExecCommand goes ahead of stdin, and the request reads it back and evals
/// it in the user's shell: `eval "$(head -c SIZE)"` (head(1) reads no more than asked, so the
/// command's own stdin follows). Shorter commands are the request as they are.
struct ExecLine {
  std::string request;
  std::string ahead_of_stdin;
};
ExecLine exec_line(const std::string& command);

class HostSession : public std::enable_shared_from_this<HostSession> {
 public:
  /// The session of the job at `index` (output goes under it).
  HostSession(HostPlan plan, std::size_t index, Credentials& credentials, SetupGate& gate,
              boost::asio::any_io_executor strand);
  ~HostSession();
  HostSession(const HostSession&) = delete;
  HostSession& operator=(const HostSession&) = delete;

  /// Connects and authenticates. Call once, on the strand given to the constructor.
  boost::asio::awaitable<Step> open(StopSignal& stop);
  /// Runs one command on the open session (Session::exec()), on the same strand. A failed
  /// operation spends the session: later ones fail the same way at once.
  boost::asio::awaitable<HostResult> exec(const ExecRequest& request, JobIo& io, StopSignal& stop);
  /// Ends the session at once (see the .cpp); the destructor does it too. Idempotent.
  void close();

 private:
  void abort_on(StopSignal& stop);
  void start_operation(const ExecRequest& request, JobIo& io);
  boost::asio::awaitable<Step> enter_gate();
  void leave_gate();
  boost::asio::awaitable<Step> connect();
  boost::asio::awaitable<Step> handshake();
  Step verify_host_key();
  boost::asio::awaitable<Step> start_command(const std::string& text);
  boost::asio::awaitable<Step> stream();
  // stream()'s steps. Each makes its libssh2 calls and notes in the pass what came of them.
  struct StreamPass {
    bool progress = false;   // bytes went out or came in, or EOF went out
    bool more = false;       // output left unread at the fair share
    bool half_sent = false;  // the step's last call returned EAGAIN with a packet half sent
    bool eof_waits = false;  // EOF is due but the socket has no room for it
  };
  using StreamStep = Step (HostSession::*)(StreamPass&);
  Step run_step(StreamStep step, StreamPass& pass);
  Step send_stdin(StreamPass& pass);
  Step send_eof(StreamPass& pass);
  Step drain_stdout(StreamPass& pass);
  Step drain_stderr(StreamPass& pass);
  Step drain(Stream stream, StreamPass& pass);
  enum class Next { again, yield, wait, wait_writable, ended };
  Next next_after(const StreamPass& pass) const;
  boost::asio::awaitable<Step> collect_exit(HostResult& result);
  void arm_deadline(std::chrono::milliseconds after, Failure failure, const char* what);
  void abort(Failure failure, std::string error);
  boost::asio::awaitable<void> kill_command();

  HostPlan plan_;
  std::size_t index_;
  StopSignal* stop_ = nullptr;  // the last one registered to abort the session
  Step spent_;                  // set: a failure that ended the session, for every later exec
  unsigned operation_ = 0;      // counts execs: a stall reported for an earlier one is ignored
  JobIo* io_ = nullptr;         // the operation's output
  InputSource* input_source_ = nullptr;  // the operation's stdin; null: none
  bool input_done_ = true;               // no more stdin: its end, or the command closed it
  bool input_wake_armed_ = false;        // the broadcast will wake the wait when it has more
  Credentials& credentials_;
  SetupGate& gate_;
  bool holds_slot_ = false;         // admitted by gate_, not yet set up
  bool holds_descriptors_ = false;  // admitted by gate_, not yet closed
  bool finished_ = false;           // close() ran: a slot handed over now is passed on
  SshWaiter waiter_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer deadline_;
  boost::asio::steady_timer admission_;  // waited on while queued at gate_
  unsigned deadline_generation_ = 0;     // a deadline that fired for an earlier phase is ignored
  LIBSSH2_SESSION* session_ = nullptr;
  LIBSSH2_CHANNEL* channel_ = nullptr;
  bool handshaken_ = false;
  ExecLine line_;                 // the request, and what goes ahead of stdin
  bool input_is_line_ = false;    // input_ is (the rest of) line_.ahead_of_stdin
  std::string_view input_;        // stdin taken from the broadcast, not yet accepted by libssh2
  bool command_running_ = false;  // exec requested, and its channel not seen closed
  bool eof_sent_ = false;         // EOF sent, or the command no longer reads stdin
  StreamStep pending_ = nullptr;  // the step whose libssh2 call left a packet half sent
};

/// An ssh_config algorithm list (KexAlgorithms, HostKeyAlgorithms, Ciphers, MACs) applied to
/// `defaults` (comma-separated, in order of preference) as ssh(1) does: "+a,b" appends those not
/// there yet, "-a,b*" removes those matching (`*` and `?` as in Host patterns), "^a,b" puts them
/// first; a list without a prefix replaces the defaults.
std::string apply_algorithm_list(std::string_view defaults, std::string_view list);

/// The names of `list` that are in `supported`, in `list`'s order (both comma-separated).
/// libssh2 1.10 drops the others itself, but with an overlapping memcpy.
std::string supported_only(std::string_view list, std::string_view supported);

}  // namespace pdx
