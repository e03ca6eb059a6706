#pragma once
// The seam between the executor (core/) and the ways of reaching a host (ssh, local exec).
//
// A Transport opens a Session to one host (connected and authenticated), and the Session runs
// operations on it one after the other: exec a command with a streamed stdin and streamed
// stdout/stderr (more kinds of channel later). Both are coroutines on the executor they are
// co_awaited from (a strand of the run's io_context: one strand per worker, see
// core/executor.h), and the session stays on that strand. Output goes through JobIo as it
// arrives; a host's failure (connect, auth, timeout, exit status) is a HostResult, never an
// exception. run(job) is open + exec of the job's command.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdx {

class Broadcast;
class InputSource;

enum class Stream { out, err };

/// Where a host is reached, as the user wrote it (user@name:port), split up.
struct Endpoint {
  std::string host;  // name or address; IPv6 without brackets
  std::string user;  // empty: the transport's default (ssh_config User, -l, $USER)
  int port = 0;      // 0: the transport's default (ssh_config Port, -p, 22)
};

/// Why a host produced no exit status. Everything but `none` counts as exit status 255.
enum class Failure {
  none,             // the command ran; see exit_status / signal
  connect,          // refused, unreachable, name not resolved
  connect_timeout,  // -t expired before the session was up
  host_key,         // unknown or changed host key: nothing was run
  auth,             // no identity was accepted
  protocol,         // the ssh session broke after it was up
  command_timeout,  // -u expired: the command was killed
  stalled,          // took none of its stdin for long while the other hosts waited for it
  interrupted,      // Ctrl-C
  local,            // fork/exec or another local failure
};

/// What happened on one host.
struct HostResult {
  int exit_status = 0;  // meaningful when failure == none and signal is empty
  std::string signal;   // "KILL", "SEGV", ... when the command died of a signal
  Failure failure = Failure::none;
  std::string
      error;  // one line, no host name, when failure != none ("connect timed out after 10s")
  std::chrono::steady_clock::duration duration{};
};

/// A variable exported to a command: KEY, VALUE.
using EnvVar = std::pair<std::string, std::string>;

/// One host's work, as the executor hands it to a transport.
struct Job {
  Endpoint endpoint;
  std::string label;      // how pdx names this host in output ("node01", "[::1]:2222")
  std::size_t index = 0;  // 0-based position in the host list (PDX_RANK)
  /// Run by the user's shell on the host (ssh) or by /bin/sh -c here (local exec), as typed
  /// (core/jobs.h: pdsh's %h %u %n already substituted where they are).
  std::string command;
  /// Exported to the command (PDX_*, -E): quoted in front of it over ssh
  /// (transport/remote_command.h), in the child's environment for local exec.
  std::vector<EnvVar> env;
  /// What the command reads on stdin, then EOF: reader `index` of a broadcast shared by all
  /// hosts (transport/broadcast.h). Null: EOF at once. The transport finish()es its reader.
  std::shared_ptr<Broadcast> stdin_source;
  /// -t. nullopt: not given (ssh: ssh_config ConnectTimeout, else 10 s). 0: none.
  std::optional<std::chrono::milliseconds> connect_timeout;
  std::chrono::milliseconds command_timeout{0};  // 0: none; counted from when the command starts
};

/// Where a transport delivers output. Thread-safe; called from the job's strand.
class JobIo {
 public:
  virtual ~JobIo() = default;
  virtual void output(std::size_t index, Stream stream, std::string_view bytes) = 0;
};

/// Fired once when the user interrupts the run (Ctrl-C). A transport registers what stopping
/// means for it (kill the process group, close the channel). Thread-safe: stop() comes from the
/// executor's signal thread, possibly while every io_context thread is busy; a callback
/// registered after stop() runs at once, on the registering thread. A callback must be safe on
/// any thread: post to the job's strand, or do something thread-safe (kill(2) under a lock).
/// The executor calls clear() when the job ends, dropping the callbacks and what they hold.
class StopSignal {
 public:
  using Callback = std::function<void()>;
  void on_stop(Callback cb);
  void stop();
  bool stopped() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  bool stopped_ = false;
  std::vector<Callback> callbacks_;
};

/// ssh's ServerAliveInterval and ServerAliveCountMax for a host.
struct KeepAlive {
  std::chrono::seconds interval{0};  // 0: no keepalives
  int count_max = 3;                 // answers missed in a row before the host is given up
};

/// One command for Session::exec().
struct ExecRequest {
  /// As typed. ssh: run by the user's shell on the host, `env` exported in front of it and
  /// `timeout` enforced by the host too (transport/remote_command.h); local: /bin/sh -c here,
  /// `env` in the child's environment.
  std::string command;
  std::vector<EnvVar> env;
  std::chrono::milliseconds timeout{0};  // 0: none; counted from when the command starts
  /// What the command reads on stdin, then EOF; null: EOF at once. exec() finish()es it.
  InputSource* input = nullptr;
};

/// An open, authenticated connection to one host (ssh), or what stands for one (local exec).
/// Used on the strand it was opened on, one operation at a time. Destroying it closes the
/// connection without waiting. Once `stop` has fired, every operation ends as interrupted.
class Session {
 public:
  virtual ~Session() = default;
  /// Runs `request` to its end: output to `io` under the job's index as it comes. `io` and
  /// `stop` outlive the call. A failed operation may leave the session unusable: over ssh every
  /// later one then fails at once with the same failure (the connection's state is not known);
  /// a local session goes on.
  virtual boost::asio::awaitable<HostResult> exec(const ExecRequest& request, JobIo& io,
                                                  StopSignal& stop) = 0;
  /// Whether the host was reached by a TCP connection of this session's own (ssh, not through a
  /// jump host or a ProxyCommand): where pdx may link to it directly (push's data links).
  virtual bool reached_over_tcp() const { return false; }
  /// False if the connection is known to be down (the host closed it while idle): a session
  /// kept for later (transport/mux_holder.h) is then replaced. Cheap; on the session's strand.
  virtual bool alive() const { return true; }
  /// How often an idle session kept for later is to be checked (keepalive), and how patiently.
  virtual KeepAlive keepalive() const { return {}; }
  /// Sends the host a request it must answer and waits up to `limit` for the answer, as ssh's
  /// keepalives; false (and the session then not alive()) if none came. Only while no exec runs.
  virtual boost::asio::awaitable<bool> answers(std::chrono::milliseconds limit);
};

/// What Transport::open() came to: a session, or why there is none.
struct Opened {
  std::unique_ptr<Session> session;  // null: see failure
  HostResult failure;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Connects to `job`'s host and authenticates (-t applies). `stop` outlives the session.
  virtual boost::asio::awaitable<Opened> open(const Job& job, StopSignal& stop) = 0;
  /// open() + exec() of the job's command, stdin its reader of job.stdin_source.
  boost::asio::awaitable<HostResult> run(const Job& job, JobIo& io, StopSignal& stop);
};

}  // namespace pdx
