#pragma once
// One command on an open ssh connection (transport/ssh_connection.h): exec, stream stdin out and
// stdout/stderr in, exit status, and killing a cut-short command on the host. A connection runs
// its channels one after the other.
#include <memory>
#include <string>
#include <string_view>

#include "transport/ssh_connection.h"

namespace pdx {

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

/// A round trip the host must answer, for keepalives (Session::answers()): a channel opened and
/// closed, within `limit`. Not ssh's keepalive@openssh.com global request: libssh2 1.10 keeps
/// each reply to one in a list it never empties. A failure spends the connection.
boost::asio::awaitable<Step> answer_round_trip(std::shared_ptr<SshConnection> connection,
                                               std::chrono::milliseconds limit);

class SshChannel : public std::enable_shared_from_this<SshChannel> {
 public:
  /// `request` and `io` outlive run(); output goes under `index`.
  SshChannel(std::shared_ptr<SshConnection> connection, std::size_t index,
             const ExecRequest& request, JobIo& io);
  SshChannel(const SshChannel&) = delete;
  SshChannel& operator=(const SshChannel&) = delete;

  /// Runs the request to its end (Session::exec()). Call once, on the connection's strand.
  boost::asio::awaitable<HostResult> run(StopSignal& stop);

 private:
  boost::asio::awaitable<Step> exec();
  boost::asio::awaitable<Step> stream();
  // stream()'s steps. Each makes its libssh2 calls and notes in the pass what came of them.
  struct StreamPass {
    bool progress = false;   // bytes went out or came in, or EOF went out
    bool more = false;       // output left unread at the fair share
    bool half_sent = false;  // the step's last call returned EAGAIN with a packet half sent
    bool eof_waits = false;  // EOF is due but the socket has no room for it
  };
  using StreamStep = Step (SshChannel::*)(StreamPass&);
  Step run_step(StreamStep step, StreamPass& pass);
  Step send_stdin(StreamPass& pass);
  Step send_eof(StreamPass& pass);
  Step drain_stdout(StreamPass& pass);
  Step drain_stderr(StreamPass& pass);
  Step drain(Stream stream, StreamPass& pass);
  enum class Next { again, yield, wait, wait_writable, ended };
  Next next_after(const StreamPass& pass) const;
  boost::asio::awaitable<Step> collect_exit(HostResult& result);
  boost::asio::awaitable<void> kill_command();

  std::shared_ptr<SshConnection> connection_;
  SshWaiter& waiter_;         // the connection's
  LIBSSH2_SESSION* session_;  // the connection's
  boost::asio::any_io_executor strand_;
  std::size_t index_;
  const ExecRequest& request_;
  JobIo& io_;
  InputSource* input_source_;           // the request's stdin; null: none
  bool input_done_;                     // no more stdin: its end, or the command closed it
  bool input_wake_armed_ = false;       // the source will wake the wait when it has more
  LIBSSH2_CHANNEL* channel_ = nullptr;  // freed here once closed, else by the connection
  ExecLine line_;                       // the request, and what goes ahead of stdin
  bool input_is_line_ = false;          // input_ is (the rest of) line_.ahead_of_stdin
  std::string_view input_;              // stdin taken from the source, not yet accepted by libssh2
  bool command_running_ = false;        // exec requested, and its channel not seen closed
  bool eof_sent_ = false;               // EOF sent, or the command no longer reads stdin
  StreamStep pending_ = nullptr;        // the step whose libssh2 call left a packet half sent
};

}  // namespace pdx
