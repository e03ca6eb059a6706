// -R exec: each host's command runs here as `/bin/sh -c COMMAND`, in its own process group, with
// stdout/stderr/stdin on pipes driven by Asio on the job's strand. Opening a host's session
// does nothing; each exec() spawns a process:
//
//   spawn --> pumping (stdout, stderr, stdin in parallel) --> reap --> HostResult
//                |  -u expires: SIGKILL to the group, Failure::command_timeout
//                |  Ctrl-C:     SIGKILL to the group, Failure::interrupted
#include "transport/local_transport.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/awaitable.h"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

#include "transport/broadcast.h"
#include "transport/seconds.h"
#include "transport/signals.h"
#include "transport/spawn_sh.h"
#include "transport/transport.h"

extern char** environ;

namespace asio = boost::asio;
using asio::use_awaitable;

namespace pdx {

namespace {

using Executor = asio::any_io_executor;

// One child process; shared with the stop and timeout callbacks, which may outlive the coroutine.
// The timers and `pumps` belong to the job's strand. kill_group() may come from any thread (the
// executor's signal thread): `mutex` orders it against reaping, and the child is only reaped
// (its pid, which is its group id, freed for reuse) under that lock.
struct Process {
  explicit Process(Executor ex) : timeout(ex), done(ex), input_ready(ex) {}
  pid_t pid = -1;
  asio::steady_timer timeout;
  asio::steady_timer done;         // cancelled when the last pump ends: a latch
  asio::steady_timer input_ready;  // cancelled when stdin has more, or the outputs closed
  int pumps = 0;
  int outputs = 2;          // output pumps still running
  std::string input_error;  // stdin could not be read, or went unread too long

  void kill_group(Failure why, std::string error = "") {
    std::lock_guard lock(mutex);
    if (reaped || killed_for != Failure::none) return;
    killed_for = why;
    killed_error = std::move(error);
    ::kill(-pid, SIGKILL);
  }
  Failure killed() {
    std::lock_guard lock(mutex);
    return killed_for;
  }
  std::string killed_why() {
    std::lock_guard lock(mutex);
    return killed_error;
  }
  // waitpid() under the lock, once waitid(WNOWAIT) said the child has exited. -1 on error.
  int reap_now() {
    std::lock_guard lock(mutex);
    int status = 0;
    reaped = true;
    return ::waitpid(pid, &status, 0) == pid ? status : -1;
  }
  void pump_ended() {
    if (--pumps == 0) done.cancel();
  }

 private:
  std::mutex mutex;
  bool reaped = false;
  Failure killed_for = Failure::none;
  std::string killed_error;
};

// Ends a pump however it ends, so the latch cannot wait forever.
struct PumpGuard {
  Process& proc;
  ~PumpGuard() { proc.pump_ended(); }
};

// The child's environment: ours, with the request's variables replacing or adding.
std::vector<std::string> child_environment(const std::vector<EnvVar>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    auto key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || x.first == key;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

struct Pipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  ~Pipes() {
    for (int* p : {in, out, err})
      for (int i = 0; i < 2; ++i)
        if (p[i] >= 0) ::close(p[i]);
  }
  bool open() {
    return ::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0 &&
           ::pipe2(err, O_CLOEXEC) == 0;
  }
  static int take(int& fd) { return std::exchange(fd, -1); }
};

// Starts /bin/sh -c command in a new process group with default SIGPIPE/SIGINT/SIGTERM.
// Returns 0 or an errno value.
int spawn(const ExecRequest& request, Pipes& pipes, pid_t& pid) {
  std::vector<std::string> env = child_environment(request.env);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  return spawn_sh(request.command, pipes.in[0], pipes.out[1], pipes.err[1], envp.data(),
                  {SIGPIPE, SIGINT, SIGTERM, SIGQUIT}, pid);
}

// Takes ownership of fd; closes it even if the descriptor cannot be registered.
asio::posix::stream_descriptor adopt(const Executor& ex, int fd) {
  asio::posix::stream_descriptor pipe(ex);
  boost::system::error_code ec;
  pipe.assign(fd, ec);
  if (ec) {
    ::close(fd);
    throw boost::system::system_error(ec);
  }
  return pipe;
}

asio::awaitable<void> pump_output(std::shared_ptr<Process> proc, int fd, std::size_t index,
                                  JobIo& io, Stream stream) {
  PumpGuard guard{*proc};
  auto pipe = adopt(co_await asio::this_coro::executor, fd);
  struct OutputGuard {  // once both outputs closed, the command gets no more input
    Process& proc;
    ~OutputGuard() {
      if (--proc.outputs == 0) proc.input_ready.cancel();
    }
  } output_guard{*proc};
  std::array<char, 65536> buf;
  boost::system::error_code ec;
  for (;;) {
    std::size_t n =
        co_await pipe.async_read_some(asio::buffer(buf), asio::redirect_error(use_awaitable, ec));
    if (n) io.output(index, stream, std::string_view(buf.data(), n));
    if (ec) break;
  }
}

// The request's stdin, as its source hands it out, until its end, or the command stops reading
// (EPIPE: it did not want it all; fine) or closes its outputs.
asio::awaitable<void> feed_input(std::shared_ptr<Process> proc, int fd, InputSource* source) {
  PumpGuard guard{*proc};
  Executor ex = co_await asio::this_coro::executor;
  auto pipe = adopt(ex, fd);
  if (!source) co_return;
  InputSource& input = *source;
  struct Finish {
    InputSource& input;
    ~Finish() { input.finish(); }
  } finish{input};
  input.on_stall([proc](const std::string& why) { proc->kill_group(Failure::stalled, why); });
  boost::system::error_code ec;
  while (proc->outputs > 0) {
    auto piece = input.next();
    if (piece.state == InputPiece::State::end) break;
    if (piece.state == InputPiece::State::failed) {
      proc->input_error = piece.error;
      break;
    }
    if (piece.state == InputPiece::State::wait) {
      proc->input_ready.expires_at(asio::steady_timer::time_point::max());
      input.on_ready([proc, ex] { asio::post(ex, [proc] { proc->input_ready.cancel(); }); });
      co_await proc->input_ready.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    std::size_t n = co_await asio::async_write(pipe, asio::buffer(piece.bytes),
                                               asio::redirect_error(use_awaitable, ec));
    input.consume(n);
    if (ec) break;
  }
}

// Waits for the child without blocking the thread: it has closed its output, so it is
// normally gone already; otherwise poll with a growing pause. Returns the wait status, or -1.
asio::awaitable<int> reap(Process& proc) {
  asio::steady_timer pause(co_await asio::this_coro::executor);
  auto delay = std::chrono::milliseconds(1);
  for (;;) {
    siginfo_t info{};
    int rc = ::waitid(P_PID, static_cast<id_t>(proc.pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc < 0 && errno != EINTR) co_return -1;
    if (rc == 0 && info.si_pid == proc.pid) co_return proc.reap_now();
    pause.expires_after(delay);
    boost::system::error_code ec;
    co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
    delay = std::min(delay * 2, std::chrono::milliseconds(50));
  }
}

HostResult result_of(Process& proc, int status, const ExecRequest& request) {
  HostResult r;
  Failure killed = proc.killed();
  if (killed == Failure::stalled) {
    r.failure = Failure::stalled;
    r.error = proc.killed_why() + " (killed)";
  } else if (!proc.input_error.empty() && killed == Failure::none) {
    r.failure = Failure::local;
    r.error = proc.input_error;
  } else if (killed == Failure::command_timeout) {
    r.failure = Failure::command_timeout;
    r.error = "command timed out after " + format_seconds(request.timeout) + " (killed)";
  } else if (killed == Failure::interrupted) {
    r.failure = Failure::interrupted;
    r.error = "interrupted";
  } else if (status < 0) {
    r.failure = Failure::local;
    r.error = "lost track of the command (waitpid failed)";
  } else if (WIFSIGNALED(status)) {
    r.signal = signal_name(WTERMSIG(status));
  } else {
    r.exit_status = WEXITSTATUS(status);
  }
  return r;
}

class LocalSession final : public Session {
 public:
  explicit LocalSession(std::size_t index) : index_(index) {}

  asio::awaitable<HostResult> exec(const ExecRequest& request, JobIo& io,
                                   StopSignal& stop) override {
    Executor ex = co_await asio::this_coro::executor;
    auto proc = std::make_shared<Process>(ex);
    Pipes pipes;
    int rc = pipes.open() ? spawn(request, pipes, proc->pid) : errno;
    if (rc != 0) {
      if (request.input) request.input->finish();
      HostResult r;
      r.failure = Failure::local;
      r.error = std::string("cannot run /bin/sh: ") + std::strerror(rc);
      co_return r;
    }
    for (int* child_end : {&pipes.in[0], &pipes.out[1], &pipes.err[1]})
      ::close(Pipes::take(*child_end));

    stop.on_stop([proc] { proc->kill_group(Failure::interrupted); });
    if (request.timeout.count() > 0) {
      proc->timeout.expires_after(request.timeout);
      proc->timeout.async_wait([proc](boost::system::error_code ec) {
        if (!ec) proc->kill_group(Failure::command_timeout);
      });
    }
    proc->pumps = 3;
    proc->done.expires_at(asio::steady_timer::time_point::max());
    asio::co_spawn(ex, pump_output(proc, Pipes::take(pipes.out[0]), index_, io, Stream::out),
                   asio::detached);
    asio::co_spawn(ex, pump_output(proc, Pipes::take(pipes.err[0]), index_, io, Stream::err),
                   asio::detached);
    asio::co_spawn(ex, feed_input(proc, Pipes::take(pipes.in[1]), request.input), asio::detached);
    if (proc->pumps > 0) {  // one strand: no pump can end between this test and the wait
      boost::system::error_code ec;
      co_await proc->done.async_wait(asio::redirect_error(use_awaitable, ec));
    }

    int status = co_await reap(*proc);
    proc->timeout.cancel();
    co_return result_of(*proc, status, request);
  }

 private:
  std::size_t index_;
};

class LocalTransport final : public Transport {
 public:
  asio::awaitable<Opened> open(const Job& job, StopSignal&) override {
    co_return Opened{std::make_unique<LocalSession>(job.index), {}};
  }
};

}  // namespace

std::unique_ptr<Transport> make_local_transport() {
  return std::make_unique<LocalTransport>();
}

}  // namespace pdx
