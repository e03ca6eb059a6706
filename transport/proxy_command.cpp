#include "transport/proxy_command.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/awaitable.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "transport/spawn_sh.h"
#include "transport/ssh_config.h"

extern char** environ;

namespace pdx {
namespace asio = boost::asio;

namespace {

constexpr std::size_t kLineMax = 4096;  // a longer stderr line is written in pieces

// The command's stderr, line by line, "LABEL: line" on pdx's stderr, each with one write().
struct StderrLines {
  StderrLines(asio::any_io_executor ex, int fd, std::string prefix)
      : pipe(ex, fd), label(std::move(prefix)) {}
  asio::posix::stream_descriptor pipe;
  std::string label, partial;

  void take(std::string_view bytes) {
    for (;;) {
      auto newline = bytes.find('\n');
      partial.append(bytes.substr(0, newline));
      if (newline == std::string_view::npos) break;
      flush();
      bytes.remove_prefix(newline + 1);
    }
    if (partial.size() >= kLineMax) flush();
  }
  void flush() {
    if (partial.empty()) return;
    std::string line = label + ": " + partial + "\n";
    partial.clear();
    for (std::size_t at = 0; at < line.size();) {
      ssize_t n = ::write(STDERR_FILENO, line.data() + at, line.size() - at);
      if (n <= 0 && errno != EINTR) break;
      if (n > 0) at += static_cast<std::size_t>(n);
    }
  }
  // What is in the pipe now, without waiting; then the pipe is closed.
  void drain() {
    boost::system::error_code ec;
    pipe.non_blocking(true, ec);
    char buffer[4096];
    for (;;) {
      std::size_t n = pipe.read_some(asio::buffer(buffer), ec);
      if (ec || n == 0) break;
      take(std::string_view(buffer, n));
    }
    flush();
    pipe.close(ec);
  }
};

asio::awaitable<void> copy_stderr(std::shared_ptr<StderrLines> lines) {
  char buffer[4096];
  for (;;) {
    boost::system::error_code ec;
    std::size_t n = co_await lines->pipe.async_read_some(
        asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, ec));
    lines->take(std::string_view(buffer, n));
    if (ec) break;
  }
  lines->flush();
}

// SIGHUP, then SIGKILL after a second; reaped without blocking the strand; then what is left
// of its stderr is written.
asio::awaitable<void> end_process(pid_t pid, std::shared_ptr<StderrLines> lines) {
  ::kill(-pid, SIGHUP);
  asio::steady_timer pause(lines->pipe.get_executor());
  auto delay = std::chrono::milliseconds(1), waited = std::chrono::milliseconds(0);
  bool killed = false;
  for (;;) {
    int status = 0;
    pid_t rc = ::waitpid(pid, &status, WNOHANG);
    if (rc == pid || (rc < 0 && errno != EINTR)) break;
    if (!killed && waited >= std::chrono::seconds(1)) {
      ::kill(-pid, SIGKILL);
      killed = true;
    }
    pause.expires_after(delay);
    boost::system::error_code ec;
    co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    waited += delay;
    delay = std::min(delay * 2, std::chrono::milliseconds(50));
  }
  lines->drain();
}

class ProxyProcess final : public Conduit {
 public:
  ProxyProcess(pid_t pid, std::shared_ptr<StderrLines> lines) : pid_(pid), lines_(lines) {
    asio::co_spawn(lines->pipe.get_executor(), copy_stderr(lines), asio::detached);
  }
  ~ProxyProcess() override {
    asio::co_spawn(lines_->pipe.get_executor(), end_process(pid_, lines_), asio::detached);
  }

 private:
  pid_t pid_;
  std::shared_ptr<StderrLines> lines_;
};

// Starts `sh -c 'exec COMMAND'` in a process group of its own, its stdin and stdout `io`, its
// stderr `err`, SIGPIPE and the rest at their defaults. 0 or an errno value.
int spawn(const std::string& command, int io, int err, pid_t& pid) {
  return spawn_sh("exec " + command, io, io, err, environ,
                  {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP}, pid);
}

class ProxyCommandRoute final : public Route {
 public:
  explicit ProxyCommandRoute(std::string command) : command_(std::move(command)) {}
  void reach(Ready ready, std::shared_ptr<std::atomic<bool>>) override { ready(Step{}); }
  void dial(const DialTarget& target, Done done) override {
    std::string command = expand_proxy_command(command_, target);
    auto failed = [&](const char* what) {
      done(Dialed{Fd(), nullptr,
                  StepFailure{Failure::local, std::string(what) + " for ProxyCommand '" + command +
                                                  "': " + std::strerror(errno)}});
    };
    int pair[2], err[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      return failed("cannot make a socketpair");
    Fd mine(pair[0]), its(pair[1]);
    if (::pipe2(err, O_CLOEXEC) != 0) return failed("cannot make a pipe");
    Fd err_read(err[0]), err_write(err[1]);
    pid_t pid = -1;
    if (int rc = spawn(command, its.get(), err_write.get(), pid); rc != 0) {
      errno = rc;
      return failed("cannot start /bin/sh");
    }
    auto lines = std::make_shared<StderrLines>(target.strand, err_read.release(), target.label);
    done(Dialed{std::move(mine), std::make_shared<ProxyProcess>(pid, lines), Step{}});
  }

 private:
  std::string command_;
};

}  // namespace

std::string expand_proxy_command(const std::string& command, const DialTarget& target) {
  std::string out;
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (command[i] != '%' || i + 1 == command.size()) {
      out += command[i];
      continue;
    }
    switch (command[++i]) {
      case 'h':
        out += target.host;
        break;
      case 'p':
        out += std::to_string(target.port);
        break;
      case 'r':
        out += target.user;
        break;
      case 'n':
        out += target.alias;
        break;
      case '%':
        out += '%';
        break;
      default:
        out += '%', out += command[i];
    }
  }
  return out;
}

std::shared_ptr<Route> proxy_command_route(std::string command) {
  return std::make_shared<ProxyCommandRoute>(std::move(command));
}

}  // namespace pdx
