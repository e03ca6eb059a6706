// The holder: held ssh sessions served to later runs over Unix sockets (mux_holder.h).
#include "transport/mux_holder.h"

#include "base/awaitable.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "transport/input_source.h"
#include "transport/mux_line.h"
#include "transport/mux_path.h"
#include "transport/transport.h"

namespace pdx {
namespace asio = boost::asio;
using mux::Line;
using mux::Type;

namespace {

// What a run that does not read its output may hold queued in the holder before the holder
// waits for it (blocking its other runs), and for how long before it gives that run up.
constexpr std::size_t kOutputBound = 4 << 20, kOutputLow = 1 << 20;
constexpr std::chrono::milliseconds kSlowReader{60000};
// A holder that never got a session (every host failed) does not wait for ControlPersist.
constexpr std::chrono::seconds kUnusedLife{30};

/// An exec's stdin, fed by the run's input frames; acked as the command takes it.
class LineInput final : public InputSource {
 public:
  explicit LineInput(std::shared_ptr<Line> line) : line_(std::move(line)) {}
  void push(std::string bytes) {
    if (finished_ || bytes.empty()) return;
    chunks_.push_back(std::move(bytes));
    wake();
  }
  void end() {
    ended_ = true;
    wake();
  }
  InputPiece next() override {
    if (finished_ || chunks_.empty())
      return InputPiece{
          finished_ || ended_ ? InputPiece::State::end : InputPiece::State::wait, {}, {}};
    return InputPiece{InputPiece::State::data, std::string_view(chunks_.front()).substr(at_), {}};
  }
  void consume(std::size_t n) override {
    at_ += n;
    unacked_ += n;
    if (at_ >= chunks_.front().size()) {
      chunks_.pop_front();
      at_ = 0;
    }
    if (unacked_ >= mux::kChunk || chunks_.empty()) {
      line_->send(mux::encode_u64(Type::ack, unacked_));
      unacked_ = 0;
    }
  }
  void on_ready(std::function<void()> wake) override {
    wake_ = std::move(wake);
    if (!chunks_.empty() || ended_) this->wake();
  }
  void on_stall(std::function<void(const std::string&)>) override {}
  void finish() override {
    finished_ = true;
    chunks_.clear();
  }

 private:
  void wake() {
    if (auto w = std::exchange(wake_, nullptr)) w();
  }
  std::shared_ptr<Line> line_;
  std::deque<std::string> chunks_;
  std::size_t at_ = 0, unacked_ = 0;
  bool ended_ = false, finished_ = false;
  std::function<void()> wake_;
};

/// One exec's output, as frames to the run.
class LineIo final : public JobIo {
 public:
  LineIo(std::shared_ptr<Line> line, StopSignal& stop) : line_(std::move(line)), stop_(stop) {}
  void output(std::size_t, Stream stream, std::string_view bytes) override {
    while (!bytes.empty()) {
      auto n = std::min(bytes.size(), mux::kChunk);
      line_->send(mux::encode_output(stream, bytes.substr(0, n)));
      bytes.remove_prefix(n);
    }
    if (line_->queued() > kOutputBound && !line_->drain_to(kOutputLow, kSlowReader)) stop_.stop();
  }

 private:
  std::shared_ptr<Line> line_;
  StopSignal& stop_;
};

/// A session and the StopSignal it was opened with (which must outlive it), and when its host
/// was last heard from (set up, used, or a keepalive answered).
struct Held {
  std::unique_ptr<StopSignal> stop = std::make_unique<StopSignal>();
  std::unique_ptr<Session> session;
  std::chrono::steady_clock::time_point heard = std::chrono::steady_clock::now();
};

/// One exec's stdin and output. Its StopSignal is its session's, for the session's life: the
/// connection registers on a StopSignal once, known by its address (ssh_connection.h), which a
/// StopSignal of each exec's own could share with an earlier, freed one.
struct Exec {
  Exec(const std::shared_ptr<Line>& line, StopSignal& stop_signal)
      : stop(stop_signal), input(line), io(line, stop) {}
  StopSignal& stop;
  LineInput input;
  LineIo io;
};

/// What one connection from a run holds.
struct LineState {
  Held held;
  std::string key;
  std::shared_ptr<Exec> exec;
  bool closed = false;  // the run went away
};

std::string key_of(const Endpoint& e) {
  return e.user + "@" + e.host + ":" + std::to_string(e.port);
}

class Holder {
 public:
  Holder(asio::io_context& ctx, const SshOptions& options, std::string fingerprint,
         std::chrono::seconds persist)
      : ctx_(ctx),
        transport_(make_ssh_transport(options)),
        fingerprint_(std::move(fingerprint)),
        persist_(persist),
        signals_(ctx, SIGTERM, SIGINT),
        ticker_(ctx) {}

  int run(Fd listener) {
    auto acceptor = std::make_shared<asio::local::stream_protocol::acceptor>(ctx_);
    acceptor->assign(asio::local::stream_protocol(), listener.release());
    listen(acceptor);
    signals_.async_wait([this](boost::system::error_code ec, int) {
      if (!ec) quit();
    });
    tick();
    ctx_.run();
    return 0;
  }

 private:
  void listen(std::shared_ptr<asio::local::stream_protocol::acceptor> acceptor) {
    acceptors_.push_back(acceptor);
    asio::co_spawn(ctx_, accept_loop(std::move(acceptor)), asio::detached);
  }

  asio::awaitable<void> accept_loop(std::shared_ptr<asio::local::stream_protocol::acceptor> a) {
    for (;;) {
      boost::system::error_code ec;
      asio::local::stream_protocol::socket socket(ctx_);
      co_await a->async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted || !a->is_open()) co_return;
      if (ec) continue;
      if (peer_uid(socket.native_handle()) != ::getuid()) continue;  // only its own user
      auto line = std::make_shared<Line>(ctx_.get_executor(), Fd(socket.release()));
      asio::co_spawn(ctx_, serve(std::move(line)), asio::detached);
    }
  }

  asio::awaitable<void> serve(std::shared_ptr<Line> line) {
    ++lines_;
    auto st = std::make_shared<LineState>();
    while (auto frame = co_await line->read()) {
      if (!handle(line, st, *frame)) break;
      if (frame->type == Type::open && !st->held.session && st->key.empty()) {
        auto request = mux::decode_open(frame->body);
        if (co_await open(line, st, *request)) bind_path(request->path);
      }
    }
    line->close();
    st->closed = true;
    if (st->exec)
      st->exec->stop.stop();  // the run went away mid-command: the command is killed
    else
      give_back(*st);
    --lines_;
    last_use_ = std::chrono::steady_clock::now();
  }

  /// Acts on one frame (open is awaited by serve()); false ends the connection.
  bool handle(const std::shared_ptr<Line>& line, const std::shared_ptr<LineState>& st,
              const mux::Frame& frame) {
    switch (frame.type) {
      case Type::open: {
        auto request = mux::decode_open(frame.body);
        if (!request || st->held.session || !st->key.empty()) return false;
        if (request->fingerprint != fingerprint_) {
          line->send(mux::encode(Type::declined));
          st->key = "declined";
        }
        return true;
      }
      case Type::exec: {
        auto start = mux::decode_exec(frame.body);
        if (!start || !st->held.session || st->exec) return false;
        st->exec = std::make_shared<Exec>(line, *st->held.stop);
        asio::co_spawn(ctx_, exec(line, st, std::move(*start)), asio::detached);
        return true;
      }
      case Type::input:
        if (st->exec) st->exec->input.push(frame.body);
        return true;
      case Type::input_end:
        if (st->exec) st->exec->input.end();
        return true;
      case Type::stop:
        if (st->exec) st->exec->stop.stop();
        return true;
      case Type::check:
        line->send(mux::encode_u64(Type::pid, static_cast<std::uint64_t>(::getpid())));
        return true;
      case Type::exit:
        line->send(mux::encode_u64(Type::pid, static_cast<std::uint64_t>(::getpid())));
        line->drain_to(0, std::chrono::seconds(1));
        quit();
        return false;
      default:
        return false;  // a frame only the holder sends
    }
  }

  asio::awaitable<bool> open(std::shared_ptr<Line> line, std::shared_ptr<LineState> st,
                             mux::OpenRequest request) {
    st->key = key_of(request.endpoint);
    bool taken = take(st->key, st->held);
    while (!taken && checking_.count(st->key)) {  // its session may be back in a moment
      boost::system::error_code ignored;
      co_await keepalive_ended_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      taken = take(st->key, st->held);
    }
    if (!taken) {
      // Every session that went down goes first: those behind a jump host whose connection was
      // lost hold that connection's route, which would fail this host too; without them the
      // route is made anew, one login to the jump host for all the hosts behind it.
      drop_dead();
      Job job;
      job.endpoint = request.endpoint;
      job.label = request.label;
      if (request.connect_timeout_ms)
        job.connect_timeout = std::chrono::milliseconds(*request.connect_timeout_ms);
      Held held;
      Opened opened = co_await transport_->open(job, *held.stop);
      if (!opened.session) {
        line->send(mux::encode_result(Type::open_failed, opened.failure));
        co_return false;
      }
      held.session = std::move(opened.session);
      st->held = std::move(held);
      had_session_ = true;
    }
    line->send(mux::encode_opened(st->held.session->reached_over_tcp()));
    co_return true;
  }

  asio::awaitable<void> exec(std::shared_ptr<Line> line, std::shared_ptr<LineState> st,
                             mux::ExecStart start) {
    auto e = st->exec;
    ++execs_;  // a command cut short is killed on its host before the holder may end
    ExecRequest request{start.command, start.env, std::chrono::milliseconds(start.timeout_ms),
                        start.has_input ? &e->input : nullptr};
    HostResult result = co_await st->held.session->exec(request, e->io, e->stop);
    e->input.finish();
    line->send(mux::encode_result(Type::result, result));
    if (result.failure != Failure::none) st->held = Held{};  // its state is not known: dropped
    st->exec.reset();
    if (st->closed) give_back(*st);
    last_use_ = std::chrono::steady_clock::now();
    --execs_;
  }

  /// An idle session for `key` that is still up, into `held`; false if none.
  bool take(const std::string& key, Held& held) {
    auto found = idle_.find(key);
    if (found == idle_.end()) return false;
    auto& list = found->second;
    while (!list.empty()) {
      Held h = std::move(list.back());
      list.pop_back();
      if (h.session->alive()) {
        held = std::move(h);
        return true;
      }
    }
    return false;
  }

  void give_back(LineState& st) {
    if (st.held.session && st.held.session->alive()) {
      st.held.heard = std::chrono::steady_clock::now();
      idle_[st.key].push_back(std::move(st.held));
    }
    st.held = Held{};
  }

  /// Drops the idle sessions that went down; true if there were any.
  bool drop_dead() {
    bool dropped = false;
    for (auto it = idle_.begin(); it != idle_.end();) {
      dropped |= std::erase_if(it->second, [](const Held& h) { return !h.session->alive(); }) > 0;
      it = it->second.empty() ? idle_.erase(it) : std::next(it);
    }
    return dropped;
  }

  /// Idle sessions whose host was not heard from for their ServerAliveInterval are sent a
  /// keepalive; out of idle_ meanwhile (a run that wants the host waits for it).
  void send_keepalives() {
    auto now = std::chrono::steady_clock::now();
    for (auto& [key, list] : idle_) {
      for (auto it = list.begin(); it != list.end();) {
        auto interval = it->session->keepalive().interval;
        if (interval.count() <= 0 || now - it->heard < interval) {
          ++it;
          continue;
        }
        asio::co_spawn(ctx_, keep_alive(key, std::move(*it)), asio::detached);
        it = list.erase(it);
      }
    }
  }

  /// A host that misses ServerAliveCountMax keepalives in a row (one lasting that many
  /// intervals) is dropped: the next run logs in again instead of hanging on it.
  asio::awaitable<void> keep_alive(std::string key, Held held) {
    auto checking = checking_.insert(key);
    KeepAlive k = held.session->keepalive();
    auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(k.interval) *
                 std::max(k.count_max, 1);
    bool answered = co_await held.session->answers(limit);
    checking_.erase(checking);
    if (answered && held.session->alive()) {
      held.heard = std::chrono::steady_clock::now();
      idle_[key].push_back(std::move(held));
    } else {
      dropped_ = true;
    }
    keepalive_ended_.cancel();  // the runs waiting for this host's session look again
  }

  /// Answers on `path` too, unless a holder already does (or the path is not safe).
  void bind_path(const std::string& path) {
    if (path.empty() || bound_.count(path) || !check_control_path(path)) return;
    if (Fd other = connect_control(path)) return;
    auto acceptor = std::make_shared<asio::local::stream_protocol::acceptor>(ctx_);
    boost::system::error_code ec;
    acceptor->open(asio::local::stream_protocol(), ec);
    if (!ec) acceptor->bind(asio::local::stream_protocol::endpoint(path), ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    struct stat st {};
    if (ec || ::lstat(path.c_str(), &st) != 0) return;
    bound_[path] = st.st_ino;
    listen(std::move(acceptor));
  }

  /// Once a second: drops sessions that went down, sends keepalives; ends the holder when its
  /// time is up.
  void tick() {
    bool dropped = drop_dead() | std::exchange(dropped_, false);
    send_keepalives();
    auto idle_for = std::chrono::steady_clock::now() - last_use_;
    bool unused = lines_ == 0 && execs_ == 0 && checking_.empty();
    if (unused && ((dropped && idle_.empty()) || (!had_session_ && idle_for >= kUnusedLife) ||
                   (persist_.count() > 0 && idle_for >= persist_)))
      return quit();
    ticker_.expires_after(std::chrono::seconds(1));
    ticker_.async_wait([this](boost::system::error_code ec) {
      if (!ec) tick();
    });
  }

  void quit() {
    for (auto& [path, inode] : bound_) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0 && st.st_ino == inode) ::unlink(path.c_str());
    }
    bound_.clear();
    idle_.clear();
    ctx_.stop();
  }

  asio::io_context& ctx_;
  std::unique_ptr<Transport> transport_;
  std::string fingerprint_;
  std::chrono::seconds persist_;
  asio::signal_set signals_;
  asio::steady_timer ticker_;
  std::vector<std::shared_ptr<asio::local::stream_protocol::acceptor>> acceptors_;
  std::map<std::string, std::vector<Held>> idle_;
  std::map<std::string, ino_t> bound_;  // socket files it made, by inode
  int lines_ = 0, execs_ = 0;
  bool had_session_ = false;
  std::multiset<std::string> checking_;  // hosts (user@host:port) of the sessions out on keepalive
  // Never expires: cancelled when a keepalive ends, waking the runs waiting for its host.
  asio::steady_timer keepalive_ended_{ctx_, asio::steady_timer::time_point::max()};
  bool dropped_ = false;  // a keepalive went unanswered since the last tick
  std::chrono::steady_clock::time_point last_use_ = std::chrono::steady_clock::now();
};

}  // namespace

int run_mux_holder(const SshOptions& options, const std::string& fingerprint, Fd listener,
                   std::chrono::seconds persist) {
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  asio::io_context ctx(1);
  auto* holder = new Holder(ctx, options, fingerprint, persist);  // outlives the io_context
  int status = holder->run(std::move(listener));
  // Its sessions were closed by quit(); what the io_context still holds refers to the holder.
  ::_exit(status);
}

}  // namespace pdx
