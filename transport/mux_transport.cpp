// The run's side of warm connections: sessions through a holder (mux_transport.h).
#include "transport/mux_transport.h"

#include "base/awaitable.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>

#include "transport/input_source.h"
#include "transport/mux_line.h"

namespace pdx {
namespace asio = boost::asio;
using mux::Line;
using mux::Type;

namespace {

HostResult failed(Failure failure, std::string error) {
  HostResult r;
  r.failure = failure;
  r.error = std::move(error);
  return r;
}

/// Says `text` on stderr the first time only: one line per run, not one per host.
void say_once(std::atomic<bool>& said, const std::string& text) {
  if (!said.exchange(true)) std::fprintf(stderr, "pdx: warning: %s\n", text.c_str());
}

/// Feeds an exec's stdin to the holder, at most kInputWindow bytes ahead of its acks.
class Pump : public std::enable_shared_from_this<Pump> {
 public:
  Pump(asio::any_io_executor strand, std::shared_ptr<Line> line, InputSource* input)
      : strand_(strand), line_(std::move(line)), input_(input), event_(strand) {}

  asio::awaitable<void> run() {
    auto self = shared_from_this();
    input_->on_stall([weak = weak_from_this(), strand = strand_](const std::string& error) {
      asio::post(strand, [weak, error] {
        if (auto p = weak.lock(); p && !p->done_) {
          p->stall_ = error;
          p->line_->send(mux::encode(Type::stop));
        }
      });
    });
    while (!done_) {
      InputPiece piece = input_->next();
      if (piece.state == InputPiece::State::data) {
        std::size_t room = mux::kInputWindow - in_flight_;
        if (room == 0) {
          co_await wait();
          continue;
        }
        std::size_t n = std::min({piece.bytes.size(), room, mux::kChunk});
        line_->send(mux::encode(Type::input, piece.bytes.substr(0, n)));
        in_flight_ += n;
        input_->consume(n);
      } else if (piece.state == InputPiece::State::wait) {
        input_->on_ready([weak = weak_from_this(), strand = strand_] {
          asio::post(strand, [weak] {
            if (auto p = weak.lock()) p->notify();
          });
        });
        co_await wait();
      } else if (piece.state == InputPiece::State::end) {
        line_->send(mux::encode(Type::input_end));
        co_return;
      } else {
        stall_ = piece.error;
        line_->send(mux::encode(Type::stop));
        co_return;
      }
    }
  }

  void acked(std::uint64_t n) {
    in_flight_ -= std::min<std::uint64_t>(n, in_flight_);
    notify();
  }
  void end() {
    done_ = true;
    notify();
  }
  const std::string& stall() const { return stall_; }

 private:
  void notify() {
    ready_ = true;
    event_.cancel();
  }
  asio::awaitable<void> wait() {
    if (!ready_) {
      event_.expires_at(asio::steady_timer::time_point::max());
      boost::system::error_code ignored;
      co_await event_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
    ready_ = false;
  }

  asio::any_io_executor strand_;
  std::shared_ptr<Line> line_;
  InputSource* input_;
  asio::steady_timer event_;
  std::size_t in_flight_ = 0;
  bool ready_ = false, done_ = false;
  std::string stall_;
};

/// A session held by the holder; each exec a new channel on it there.
class MuxSession final : public Session {
 public:
  MuxSession(std::shared_ptr<Line> line, std::size_t index, bool reached_over_tcp)
      : line_(std::move(line)), index_(index), reached_over_tcp_(reached_over_tcp) {}
  ~MuxSession() override { line_->close(); }

  asio::awaitable<HostResult> exec(const ExecRequest& request, JobIo& io,
                                   StopSignal& stop) override {
    auto strand = co_await asio::this_coro::executor;
    if (!line_->open()) co_return lost(stop);
    mux::ExecStart start{request.command, request.env,
                         static_cast<std::uint64_t>(request.timeout.count()),
                         request.input != nullptr};
    line_->send(mux::encode_exec(start));
    stop.on_stop([line = line_, strand] {
      asio::post(strand, [line] { line->send(mux::encode(Type::stop)); });
    });
    auto pump = std::make_shared<Pump>(strand, line_, request.input);
    if (request.input) asio::co_spawn(strand, pump->run(), asio::detached);
    std::optional<HostResult> result;
    while (auto frame = co_await line_->read()) {
      if (frame->type == Type::output) {
        auto out = mux::decode_output(frame->body);
        if (!out) break;
        io.output(index_, out->first, out->second);
      } else if (frame->type == Type::ack) {
        auto n = mux::decode_u64(frame->body);
        if (!n) break;
        pump->acked(*n);
      } else if (frame->type == Type::result) {
        if (auto r = mux::decode_result(frame->body)) result = std::move(*r);
        break;
      } else {
        break;
      }
    }
    pump->end();
    if (request.input) request.input->finish();
    if (!result) {
      line_->close();
      co_return lost(stop);
    }
    if (!pump->stall().empty() && result->failure != Failure::none)
      *result = failed(Failure::stalled, pump->stall());
    co_return std::move(*result);
  }

  bool alive() const override { return line_->open(); }
  /// As the holder's session reached it: push's data then links to the host as a cold run's.
  bool reached_over_tcp() const override { return reached_over_tcp_; }

 private:
  static HostResult lost(const StopSignal& stop) {
    return stop.stopped()
               ? failed(Failure::interrupted, "interrupted")
               : failed(Failure::protocol, "connection to the ControlMaster holder lost");
  }
  std::shared_ptr<Line> line_;
  std::size_t index_;
  bool reached_over_tcp_;
};

Fd connect_abstract(const std::string& name) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      peer_uid(fd.get()) != ::getuid())
    return {};
  return fd;
}

/// Starts a holder for this run, detached (its own session, its parent init), listening on
/// the abstract socket `name`. False if it could not be started.
bool spawn_holder(const std::string& name, std::chrono::seconds persist,
                  const std::vector<std::string>& args) {
  Fd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (!listener || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listener.get(), SOMAXCONN) != 0)
    return false;
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  exe[n] = 0;
  std::vector<std::string> words = {"pdx", kHolderCommand, std::to_string(persist.count())};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // Between fork and exec only async-signal-safe calls: the run has other threads.
  pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    if (::fork() != 0) ::_exit(0);  // the holder's parent is init: nobody need reap it
    ::setsid();
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    if (listener.get() == 3)
      ::fcntl(3, F_SETFD, 0);
    else
      ::dup2(listener.get(), 3);
    ::syscall(SYS_close_range, 4U, ~0U, 0U);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    ::execv(exe, argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return true;
}

class MuxTransport final : public Transport {
 public:
  MuxTransport(std::unique_ptr<Transport> direct, ControlLookup lookup, const SshOptions& options)
      : direct_(std::move(direct)),
        lookup_(std::move(lookup)),
        args_(holder_arguments(options)),
        fingerprint_(fingerprint(args_)) {}

  asio::awaitable<Opened> open(const Job& job, StopSignal& stop) override {
    std::string path;
    Fd fd = reach_holder(job, path);
    if (fd) {
      auto strand = co_await asio::this_coro::executor;
      auto line = std::make_shared<Line>(strand, std::move(fd));
      std::optional<Opened> opened = co_await ask_open(line, job, path, stop);
      if (opened) co_return std::move(*opened);
    }
    co_return co_await direct_->open(job, stop);
  }

 private:
  /// A connection to the holder of `job`'s host (`path` set to its ControlPath), or to this
  /// run's own; none when the host is to be connected directly.
  Fd reach_holder(const Job& job, std::string& path) {
    ControlTarget target = lookup_(job.endpoint);
    if (!target.enabled) return {};
    auto expanded = expand_control_path(target);
    if (expanded) {
      if (auto safe = check_control_path(*expanded); !safe) expanded = Error{safe.error()};
    }
    if (!expanded) {
      say_once(said_, expanded.error() + "; connecting directly, without a ControlMaster holder");
      return {};
    }
    path = *expanded;
    Fd fd = connect_control(path);
    return fd ? std::move(fd) : own_holder(target.persist);
  }

  /// Asks the holder on `line` for a session; nullopt if it declines (other ssh options) or
  /// went away: the host is then connected directly.
  asio::awaitable<std::optional<Opened>> ask_open(std::shared_ptr<Line> line, const Job& job,
                                                  const std::string& path, StopSignal& stop) {
    auto strand = co_await asio::this_coro::executor;
    mux::OpenRequest request{fingerprint_, job.endpoint, job.label, std::nullopt, path};
    if (job.connect_timeout)
      request.connect_timeout_ms = static_cast<std::uint64_t>(job.connect_timeout->count());
    line->send(mux::encode_open(request));
    stop.on_stop([line, strand] { asio::post(strand, [line] { line->close(); }); });
    auto frame = co_await line->read();
    std::optional<Opened> opened;
    if (stop.stopped()) {
      opened = Opened{nullptr, failed(Failure::interrupted, "interrupted")};
    } else if (frame && frame->type == Type::opened) {
      if (auto over_tcp = mux::decode_opened(frame->body))
        opened = Opened{std::make_unique<MuxSession>(line, job.index, *over_tcp), {}};
    } else if (frame && frame->type == Type::open_failed) {
      if (auto result = mux::decode_result(frame->body))
        opened = Opened{nullptr, std::move(*result)};
    }
    if (!opened) line->close();
    co_return opened;
  }

  /// A connection to this run's own holder, started the first time one is needed.
  Fd own_holder(std::chrono::seconds persist) {
    std::lock_guard lock(mutex_);
    if (holder_.empty() && !holder_failed_) {
      std::random_device random;
      char name[64];
      std::snprintf(name, sizeof name, "pdx-holder-%d-%08x%08x", static_cast<int>(::getpid()),
                    random(), random());
      if (spawn_holder(name, persist, args_)) {
        holder_ = name;
      } else {
        holder_failed_ = true;
        say_once(said_, std::string("cannot start a ControlMaster holder: ") +
                            std::strerror(errno) + "; connecting directly");
      }
    }
    return holder_.empty() ? Fd() : connect_abstract(holder_);
  }

  std::unique_ptr<Transport> direct_;
  ControlLookup lookup_;
  std::vector<std::string> args_;
  std::string fingerprint_;
  std::atomic<bool> said_{false};
  std::mutex mutex_;  // guards holder_: open() runs on every strand
  std::string holder_;
  bool holder_failed_ = false;
};

/// A blocking exchange with a holder, for -O: sends `request`, returns the pid it answers.
std::optional<std::uint64_t> ask(int fd, Type request) {
  std::string frame = mux::encode(request);
  if (::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(frame.size()))
    return std::nullopt;
  timeval limit{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  mux::FrameParser parser;
  char buffer[256];
  for (;;) {
    auto next = parser.next();
    if (!next) return std::nullopt;
    if (*next) {
      if ((*next)->type != Type::pid) return std::nullopt;
      auto pid = mux::decode_u64((*next)->body);
      return pid ? std::optional(*pid) : std::nullopt;
    }
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return std::nullopt;
    parser.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
}

}  // namespace

std::unique_ptr<Transport> make_mux_transport(std::unique_ptr<Transport> direct,
                                              ControlLookup lookup, const SshOptions& options) {
  return std::make_unique<MuxTransport>(std::move(direct), std::move(lookup), options);
}

std::vector<std::string> holder_arguments(const SshOptions& o) {
  std::vector<std::string> args;
  auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) args.insert(args.end(), {flag, value});
  };
  // Files as absolute paths: the holder serves runs started in other directories.
  auto absolute = [](const std::string& file) {
    if (file.empty() || file.front() == '/' || file.front() == '~') return file;
    char cwd[PATH_MAX];
    return ::getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + file : file;
  };
  add("-l", o.user);
  add("-p", o.port ? std::to_string(o.port) : "");
  for (const auto& file : o.identity_files) add("-i", absolute(file));
  for (const auto& option : o.options) add("-o", option);
  add("-J", o.jump_hosts);
  add("-F", absolute(o.config_file));
  return args;
}

Result<SshOptions> parse_holder_arguments(const std::vector<std::string>& args) {
  SshOptions o;
  if (args.size() % 2 != 0) return Error{"odd holder arguments"};
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string& flag = args[i];
    const std::string& value = args[i + 1];
    if (flag == "-l") {
      o.user = value;
    } else if (flag == "-p") {
      o.port = std::atoi(value.c_str());
    } else if (flag == "-i") {
      o.identity_files.push_back(value);
    } else if (flag == "-o") {
      o.options.push_back(value);
    } else if (flag == "-J") {
      o.jump_hosts = value;
    } else if (flag == "-F") {
      o.config_file = value;
    } else {
      return Error{"unknown holder argument " + flag};
    }
  }
  o.holder = true;
  return o;
}

std::string fingerprint(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& word : args) out += word + '\0';
  return out;
}

int control_command(const std::string& op, const std::vector<Endpoint>& hosts,
                    const ControlLookup& lookup) {
  // Every host is checked first: one holder may hold many of them, and it is told to exit once,
  // when all were found.
  struct Found {
    std::string host;
    Fd fd;
    std::uint64_t pid = 0;
  };
  std::vector<Found> found;
  int status = 0;
  for (const auto& host : hosts) {
    auto path = expand_control_path(lookup(host));
    if (path) {
      if (auto safe = check_control_path(*path); !safe) path = Error{safe.error()};
    }
    Fd fd = path ? connect_control(*path) : Fd();
    auto pid = fd ? ask(fd.get(), Type::check) : std::nullopt;
    if (!pid) {
      std::fprintf(stderr, "%s: %s\n", host.host.c_str(),
                   !path ? path.error().c_str()
                         : ("Control socket connect(" + *path + "): no holder answers").c_str());
      status = 255;
      continue;
    }
    found.push_back({host.host, std::move(fd), *pid});
  }
  std::vector<std::uint64_t> told;
  for (auto& f : found) {
    if (op == "exit" && std::find(told.begin(), told.end(), f.pid) == told.end()) {
      ask(f.fd.get(), Type::exit);
      told.push_back(f.pid);
    }
    if (op == "exit")
      std::fprintf(stderr, "%s: Exit request sent.\n", f.host.c_str());
    else
      std::fprintf(stderr, "%s: Master running (pid=%llu)\n", f.host.c_str(),
                   static_cast<unsigned long long>(f.pid));
  }
  return status;
}

}  // namespace pdx
