#include "transport/ssh_jump.h"

#include <sys/socket.h>

#include "base/awaitable.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

namespace pdx {
namespace asio = boost::asio;

namespace {

constexpr std::size_t kChunk = 32 * 1024;              // bytes moved per call
constexpr std::size_t kPerTunnelPerPump = 256 * 1024;  // then the next tunnel's turn
constexpr std::size_t kQueuedHigh = 4 << 20;  // the hosts' bytes wait while this much is queued
constexpr auto kLinger = std::chrono::milliseconds(100);  // an idle link is closed after it
// A channel open taking longer (the jump host's connect to a dead host waits for TCP's SYN
// retries, minutes) while hosts wait behind it: another link opens for them, up to kMaxLinks.
constexpr auto kOpenStall = std::chrono::seconds(1);
constexpr std::size_t kMaxLinks = 16;
constexpr auto kGiveUpPoll = std::chrono::milliseconds(250);

// A libssh2 status that means the link's session is gone, not one channel.
bool session_lost(long rc) {
  switch (rc) {
    case LIBSSH2_ERROR_SOCKET_RECV:
    case LIBSSH2_ERROR_SOCKET_SEND:
    case LIBSSH2_ERROR_SOCKET_DISCONNECT:
    case LIBSSH2_ERROR_SOCKET_TIMEOUT:
    case LIBSSH2_ERROR_DECRYPT:
    case LIBSSH2_ERROR_PROTO:
    case LIBSSH2_ERROR_KEX_FAILURE:
    case LIBSSH2_ERROR_TIMEOUT:
    case LIBSSH2_ERROR_ALLOC:
    case LIBSSH2_ERROR_OUT_OF_BOUNDARY:
    case LIBSSH2_ERROR_INVALID_MAC:
    case kWaitAborted:
      return true;
    default:
      return false;
  }
}

// Shared by a host's conduit (on its strand) and the link (on the hop's strand).
struct TunnelShared {
  mutable std::mutex mutex;
  std::optional<StepFailure> failure;  // set before the host's end is shut down
};

class TunnelConduit final : public Conduit {
 public:
  explicit TunnelConduit(std::shared_ptr<TunnelShared> shared) : shared_(std::move(shared)) {}
  std::optional<StepFailure> hop_failure() const override {
    std::lock_guard lock(shared_->mutex);
    return shared_->failure;
  }

 private:
  std::shared_ptr<TunnelShared> shared_;
};

// One host's channel on a link, and the link's end of the host's socketpair.
struct Tunnel {
  Tunnel(const asio::any_io_executor& ex, int fd, LIBSSH2_CHANNEL* its_channel,
         std::shared_ptr<TunnelShared> its_shared)
      : end(ex, fd), channel(its_channel), shared(std::move(its_shared)) {}
  asio::posix::stream_descriptor end;
  LIBSSH2_CHANNEL* channel;
  std::shared_ptr<TunnelShared> shared;
  std::string to_host;  // read from the channel, not yet taken by the socketpair
  std::size_t to_host_at = 0;
  bool channel_eof = false, host_shut = false, done = false;
  bool read_armed = false, write_armed = false;
  bool window_spent = false;  // the host's bytes wait for the jump host's window adjust
};

struct Waiter {  // a host waiting for its jump host's first link
  Route::Ready ready;
  std::shared_ptr<std::atomic<bool>> gave_up;
};

struct DialRequest {
  DialTarget target;
  Route::Done done;
};

StepFailure via(const std::string& name, StepFailure f) {
  if (f.error.starts_with("via ")) return f;  // the first hop that failed is named
  // known_hosts' advice is -o, which is the hosts', not their jump host's (as in ssh)
  constexpr std::string_view kAdvice = "run with -o StrictHostKeyChecking=accept-new";
  if (auto at = f.error.find(kAdvice); at != std::string::npos)
    f.error.replace(at, kAdvice.size(),
                    "set StrictHostKeyChecking accept-new in the jump host's ssh_config entry");
  f.error = "via " + name + ": " + f.error;
  return f;
}

class JumpHop;

// One authenticated connection to the jump host and the tunnels on it. Everything runs on the
// hop's strand.
class JumpLink : public std::enable_shared_from_this<JumpLink> {
 public:
  JumpLink(std::shared_ptr<JumpHop> hop, std::shared_ptr<SshConnection> connection,
           const asio::any_io_executor& strand)
      : hop_(std::move(hop)), connection_(std::move(connection)), stall_(strand) {}

  asio::awaitable<void> open(StopSignal& never);
  bool is_open() const { return open_ && !dead_; }
  bool full() const { return full_; }
  bool idle() const { return tunnels_.empty() && (!opening_ || *opening_->target.gave_up); }
  bool can_take() const { return !dead_ && !full_ && !opening_; }  // open or still opening
  std::size_t tunnels() const { return tunnels_.size(); }
  void schedule();
  /// Closes the connection, its tunnels with it (nothing waits on it any more).
  void close();

 private:
  SocketIo& io() { return connection_->waiter().context().io; }
  LIBSSH2_SESSION* session() { return connection_->waiter().session(); }
  void pump();
  bool drive_open();
  bool move(const std::shared_ptr<Tunnel>& tunnel);
  void finish(Tunnel& t);
  void free_closing();
  void arm(const std::shared_ptr<Tunnel>& t, bool write);
  bool reads_socket() const;
  void arm_socket();
  void die(long rc);
  void watch_open();

  std::shared_ptr<JumpHop> hop_;  // dropped when the link closes: no cycle left
  std::shared_ptr<SshConnection> connection_;
  bool open_ = false, dead_ = false, full_ = false;
  bool pump_posted_ = false, read_armed_ = false, write_armed_ = false;
  bool again_ = false;  // a tunnel stopped at its share of a round: another round follows
  std::optional<DialRequest> opening_;  // the channel open in progress
  asio::steady_timer stall_;            // kOpenStall after an open started
  unsigned opens_ = 0;                  // opens started: a stall timer of an earlier one is stale
  std::vector<std::shared_ptr<Tunnel>> tunnels_;
  std::vector<LIBSSH2_CHANNEL*> closing_;  // freed once the server closed them too
};

class JumpHop final : public Route, public std::enable_shared_from_this<JumpHop> {
 public:
  JumpHop(std::string name, HostPlan plan, Credentials& credentials, SetupGate& gate,
          asio::any_io_executor strand)
      : name_(std::move(name)),
        plan_(std::move(plan)),
        credentials_(credentials),
        gate_(gate),
        strand_(std::move(strand)),
        linger_(strand_),
        poll_(strand_) {}

  void reach(Ready ready, std::shared_ptr<std::atomic<bool>> gave_up) override {
    asio::post(strand_, [self = shared_from_this(),
                         waiter = Waiter{std::move(ready), std::move(gave_up)}]() mutable {
      self->on_reach(std::move(waiter));
    });
  }
  void dial(const DialTarget& target, Done done) override {
    asio::post(strand_, [self = shared_from_this(),
                         request = DialRequest{target, std::move(done)}]() mutable {
      self->on_dial(std::move(request));
    });
  }

  // For the links, on the strand.
  const std::string& name() const { return name_; }
  asio::any_io_executor strand() const { return strand_; }
  std::optional<DialRequest> next_request() {
    std::erase_if(queue_, [](const DialRequest& r) { return r.target.gave_up->load(); });
    if (queue_.empty()) return std::nullopt;
    DialRequest request = std::move(queue_.front());
    queue_.pop_front();
    return request;
  }
  void link_opened() {
    for (auto& waiter : std::exchange(waiting_, {})) waiter.ready(Step{});
    for (auto& link : links_) link->schedule();
  }
  // A link refused a channel with `open` others on it: `request` goes back to the front of
  // the queue and another link is opened for it.
  void link_full(DialRequest request, std::size_t open) {
    queue_.push_front(std::move(request));
    more_links("it refused a channel with " + std::to_string(open) + " open on one");
  }
  // A link's channel open is slow while hosts wait behind it.
  void open_stalled() {
    if (queue_.empty()) return;
    for (const auto& link : links_)
      if (link->can_take()) return;  // one will take them
    more_links("a channel open was slow (a host down?) while others waited");
  }
  // A link failed to open, or was lost: its failure is the hop's once no link is left.
  void link_failed(JumpLink* link, const StepFailure& failure) {
    std::erase_if(links_, [link](const auto& l) { return l.get() == link; });
    if (std::any_of(links_.begin(), links_.end(), [](const auto& l) { return l->is_open(); })) {
      if (std::none_of(links_.begin(), links_.end(), [](const auto& l) { return !l->full(); }))
        fail_queue(failure);  // no link with room left for them
      return;
    }
    if (!links_.empty()) return;  // another is opening
    failed_ = via(name_, failure);
    for (auto& waiter : std::exchange(waiting_, {})) waiter.ready(failed_);
    fail_queue(*failed_);
  }
  // Called after every pump round: the links close kLinger after the hop was first found idle,
  // however often it is called meanwhile (an idle link's rounds must not put it off for ever).
  void check_idle() {
    std::erase_if(queue_, [](const DialRequest& r) { return r.target.gave_up->load(); });
    std::erase_if(waiting_, [](const Waiter& w) { return w.gave_up->load(); });
    if (!queue_.empty() || !waiting_.empty()) return;
    for (const auto& link : links_)
      if (!link->idle()) return;
    if (lingering_) return;
    lingering_ = true;
    linger_.expires_after(kLinger);
    linger_.async_wait(
        [self = shared_from_this(), linger = ++lingers_](boost::system::error_code ec) {
          if (linger != self->lingers_) return;  // stopped, perhaps armed again since
          self->lingering_ = false;
          if (ec || !self->queue_.empty() || !self->waiting_.empty()) return;
          for (const auto& link : self->links_)
            if (!link->idle()) return;
          for (auto& link : std::exchange(self->links_, {})) link->close();
        });
  }

 private:
  void on_reach(Waiter waiter) {
    if (failed_) return waiter.ready(failed_);
    for (const auto& link : links_)
      if (link->is_open()) return waiter.ready(Step{});
    waiting_.push_back(std::move(waiter));
    if (links_.empty()) open_link();
  }
  // Every kGiveUpPoll while a link connects: once every host that waited for it gave up
  // (Ctrl-C), it is closed, not left to run into its own deadline while pdx waits to exit.
  void watch_waiters() {
    if (watching_) return;
    watching_ = true;
    poll_.expires_after(kGiveUpPoll);
    poll_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      self->watching_ = false;
      if (ec) return;
      std::erase_if(self->waiting_, [](const Waiter& w) { return w.gave_up->load(); });
      bool connecting = std::any_of(self->links_.begin(), self->links_.end(),
                                    [](const auto& l) { return !l->is_open(); });
      if (!connecting) return;
      if (self->waiting_.empty()) self->check_idle();
      self->watch_waiters();
    });
  }
  void on_dial(DialRequest request) {
    stop_linger();
    if (failed_) return request.done(Dialed{Fd(), nullptr, failed_});
    queue_.push_back(std::move(request));
    bool room = false;
    for (const auto& link : links_) {
      if (!link->full()) room = true;
      link->schedule();
    }
    if (!room) open_link();
  }
  void open_link() {
    auto connection = std::make_shared<SshConnection>(plan_, credentials_, gate_, strand_);
    auto link = std::make_shared<JumpLink>(shared_from_this(), connection, strand_);
    links_.push_back(link);
    asio::co_spawn(strand_, link->open(never_), asio::detached);
    watch_waiters();
  }
  void more_links(const std::string& why) {
    if (links_.size() >= kMaxLinks) return;  // the queue waits for the links there are
    if (!said_more_)
      std::fprintf(stderr, "pdx: %s: more than one connection to this jump host: %s\n",
                   name_.c_str(), why.c_str());
    said_more_ = true;
    open_link();
  }
  void stop_linger() {
    lingering_ = false;
    ++lingers_;
    linger_.cancel();
  }
  void fail_queue(const StepFailure& failure) {
    for (auto& request : std::exchange(queue_, {}))
      request.done(Dialed{Fd(), nullptr, via(name_, failure)});
  }

  std::string name_;
  HostPlan plan_;
  Credentials& credentials_;
  SetupGate& gate_;
  asio::any_io_executor strand_;
  asio::steady_timer linger_;
  bool lingering_ = false;   // linger_ runs: the hop was found idle
  unsigned lingers_ = 0;     // linger_'s waits started or stopped: an earlier one's end is stale
  asio::steady_timer poll_;  // watch_waiters()
  bool watching_ = false;
  StopSignal never_;  // links end when idle, not on Ctrl-C: their hosts' sessions stop
  std::vector<std::shared_ptr<JumpLink>> links_;
  std::deque<DialRequest> queue_;
  std::vector<Waiter> waiting_;
  Step failed_;  // for the rest of the run
  bool said_more_ = false;
};

asio::awaitable<void> JumpLink::open(StopSignal& never) {
  auto self = shared_from_this();
  Step failed = co_await connection_->open(never);
  if (dead_) co_return;  // closed meanwhile (idle): nobody waits for it
  if (failed) {
    connection_->close();
    dead_ = true;
    auto hop = std::move(hop_);
    hop->link_failed(this, *failed);
    co_return;
  }
  queue_every_send(io());
  open_ = true;
  hop_->link_opened();
  schedule();
}

void JumpLink::schedule() {
  if (pump_posted_ || dead_ || !open_) return;
  pump_posted_ = true;
  asio::post(hop_->strand(), [self = shared_from_this()] {
    self->pump_posted_ = false;
    self->pump();
  });
}

// Every kOpenStall while an open is in progress: hosts waiting behind it get another link, and
// a link left with only an open nobody waits for any more may close.
void JumpLink::watch_open() {
  stall_.expires_after(kOpenStall);
  stall_.async_wait([self = shared_from_this(), open = opens_](boost::system::error_code ec) {
    if (ec || self->dead_ || !self->opening_ || open != self->opens_) return;
    self->hop_->open_stalled();
    self->hop_->check_idle();
    self->watch_open();
  });
}

void JumpLink::close() {
  if (dead_) return;
  dead_ = true;
  stall_.cancel();
  for (auto& t : tunnels_) {
    boost::system::error_code ignored;
    t->end.close(ignored);
  }
  tunnels_.clear();
  closing_.clear();
  connection_->abort(Failure::interrupted, "closed");  // a setup in progress ends
  connection_->close();                                // frees the channels
  hop_.reset();
}

// One round: the channel open in progress, every tunnel's bytes both ways, channels closing;
// then what libssh2 queued goes out and the waits are armed. Another round follows while a
// round read from the link's socket: packets for a tunnel already passed wait in libssh2.
void JumpLink::pump() {
  if (dead_) return;
  std::size_t received = io().received;
  for (;;) {
    if (!drive_open()) return;
    if (opening_ || full_) break;
    opening_ = hop_->next_request();
    if (!opening_) break;
    ++opens_;
    watch_open();
  }
  auto tunnels = tunnels_;  // move() may finish some
  for (auto& t : tunnels)
    if (!move(t)) return;
  std::erase_if(tunnels_, [](const auto& t) { return t->done; });
  free_closing();
  if (dead_) return;
  send_held(io(), connection_->waiter().socket().native_handle());
  if (io().send_error) return die(LIBSSH2_ERROR_SOCKET_SEND);
  arm_socket();
  if (io().received != received || std::exchange(again_, false)) schedule();
  hop_->check_idle();
}

// False if the link died.
bool JumpLink::drive_open() {
  if (!opening_) return true;
  const DialTarget& target = opening_->target;
  LIBSSH2_CHANNEL* channel = libssh2_channel_direct_tcpip_ex(session(), target.host.c_str(),
                                                             target.port, "127.0.0.1", 65535);
  if (!channel) {
    long rc = libssh2_session_last_errno(session());
    if (rc == LIBSSH2_ERROR_EAGAIN) return true;
    if (session_lost(rc)) return die(rc), false;
    char* message = nullptr;
    libssh2_session_last_error(session(), &message, nullptr, 0);
    std::string why = message && *message ? message : "libssh2 error " + std::to_string(rc);
    DialRequest request = std::move(*opening_);
    opening_.reset();
    stall_.cancel();
    bool refused_for_load = why.find("resource shortage") != std::string::npos ||
                            why.find("prohibited") != std::string::npos;
    if (refused_for_load && !tunnels_.empty() && !full_) {
      full_ = true;
      hop_->link_full(std::move(request), tunnels_.size());
      return true;
    }
    request.done(Dialed{
        Fd(), nullptr,
        via(hop_->name(),
            StepFailure{Failure::connect, "cannot reach port " + std::to_string(target.port) +
                                              " from it (" + why + ")"})});
    return true;
  }
  DialRequest request = std::move(*opening_);
  opening_.reset();
  stall_.cancel();
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) != 0) {
    std::string why = std::strerror(errno);
    libssh2_channel_free(channel);  // queue mode: never waits to send; a late close is dropped
    request.done(
        Dialed{Fd(), nullptr, StepFailure{Failure::local, "cannot make a socketpair: " + why}});
    return true;
  }
  auto shared = std::make_shared<TunnelShared>();
  tunnels_.push_back(std::make_shared<Tunnel>(hop_->strand(), pair[1], channel, shared));
  request.done(Dialed{Fd(pair[0]), std::make_shared<TunnelConduit>(shared), Step{}});
  return true;
}

// Moves what it can both ways. False if the link died.
bool JumpLink::move(const std::shared_ptr<Tunnel>& tunnel) {
  Tunnel& t = *tunnel;
  char buffer[kChunk];
  int fd = t.end.native_handle();
  std::size_t moved = 0;
  while (!t.done && moved < kPerTunnelPerPump) {  // channel -> host
    if (t.to_host_at == t.to_host.size()) {
      t.to_host.clear();
      t.to_host_at = 0;
      if (t.channel_eof) break;
      ssize_t n = libssh2_channel_read(t.channel, buffer, sizeof buffer);
      if (n == LIBSSH2_ERROR_EAGAIN) break;
      if (n < 0 && session_lost(n)) return die(n), false;
      if (n <= 0) {
        if (n < 0 || libssh2_channel_eof(t.channel)) t.channel_eof = true;
        break;
      }
      t.to_host.assign(buffer, static_cast<std::size_t>(n));
    }
    ssize_t sent = ::send(fd, t.to_host.data() + t.to_host_at, t.to_host.size() - t.to_host_at,
                          MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        arm(tunnel, true);
      else
        finish(t);
      break;
    }
    t.to_host_at += static_cast<std::size_t>(sent);
    moved += static_cast<std::size_t>(sent);
  }
  if (moved >= kPerTunnelPerPump) again_ = true;  // libssh2 may hold more for it
  if (!t.done && t.channel_eof && t.to_host_at == t.to_host.size() && !t.host_shut) {
    ::shutdown(fd, SHUT_WR);  // the host's session sees the end
    t.host_shut = true;
  }
  moved = 0;
  while (!t.done && moved < kPerTunnelPerPump && queued_size(io()) < kQueuedHigh) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_PEEK | MSG_DONTWAIT);  // host -> channel
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      arm(tunnel, false);
      break;
    }
    if (n <= 0) {  // the host's session closed its end (an ssh session never half-closes)
      finish(t);
      break;
    }
    ssize_t written = libssh2_channel_write(t.channel, buffer, static_cast<std::size_t>(n));
    t.window_spent = written == LIBSSH2_ERROR_EAGAIN;  // queue mode: only the window stops it
    if (t.window_spent) break;                         // the link's socket wakes us
    if (written < 0 && session_lost(written)) return die(written), false;
    if (written < 0) {
      finish(t);
      break;
    }
    ssize_t taken = ::recv(fd, buffer, static_cast<std::size_t>(written), MSG_DONTWAIT);
    moved += static_cast<std::size_t>(std::max<ssize_t>(taken, 0));
  }
  if (moved >= kPerTunnelPerPump) again_ = true;
  return true;
}

void JumpLink::finish(Tunnel& t) {
  t.done = true;
  boost::system::error_code ignored;
  t.end.close(ignored);  // its pending waits end with operation_aborted
  closing_.push_back(t.channel);
}

void JumpLink::free_closing() {
  std::erase_if(closing_, [this](LIBSSH2_CHANNEL* channel) {
    long rc = libssh2_channel_free(channel);
    if (rc != LIBSSH2_ERROR_EAGAIN && session_lost(rc)) die(rc);
    return rc != LIBSSH2_ERROR_EAGAIN || dead_;
  });
}

void JumpLink::arm(const std::shared_ptr<Tunnel>& t, bool write) {
  bool& armed = write ? t->write_armed : t->read_armed;
  if (armed) return;
  armed = true;
  t->end.async_wait(write ? asio::posix::stream_descriptor::wait_write
                          : asio::posix::stream_descriptor::wait_read,
                    [self = shared_from_this(), t, write](boost::system::error_code ec) {
                      (write ? t->write_armed : t->read_armed) = false;
                      if (ec != asio::error::operation_aborted) self->schedule();
                    });
}

// Whether the next round reads the link's socket (through libssh2): a channel open or close in
// progress, a tunnel that reads its channel (not at its end, and what it read handed on) or whose
// host's bytes wait for a window adjust. Only then is the socket waited on for reading: a link
// that reads nothing, its tunnels at their end or none left (the jump host's late channel closes,
// its keepalives, another link carrying the hosts), would find it readable again at once, for
// ever, and spin.
bool JumpLink::reads_socket() const {
  if (opening_ || !closing_.empty()) return true;
  return std::any_of(tunnels_.begin(), tunnels_.end(), [](const auto& t) {
    return !t->done && ((!t->channel_eof && t->to_host_at == t->to_host.size()) || t->window_spent);
  });
}

// The link's socket: for reading while a round would read it (reads_socket()), for writing while
// libssh2's packets are queued.
void JumpLink::arm_socket() {
  auto& socket = connection_->waiter().socket();
  auto wake = [self = shared_from_this()](bool& armed) {
    return [self, &armed](boost::system::error_code ec) {
      armed = false;
      if (self->dead_) return;
      if (ec == asio::error::operation_aborted) return self->die(kWaitAborted);
      self->io().waited();
      self->pump();
    };
  };
  if (!read_armed_ && reads_socket()) {
    read_armed_ = true;
    socket.async_wait(asio::ip::tcp::socket::wait_read, wake(read_armed_));
  }
  if (queued_size(io()) > 0 && !write_armed_) {
    write_armed_ = true;
    socket.async_wait(asio::ip::tcp::socket::wait_write, wake(write_armed_));
  }
}

// The link's connection is lost: every tunnel on it fails, named by the hop, before its host's
// end is shut down (so the host reports the hop's failure, not its own "connection lost").
void JumpLink::die(long rc) {
  if (dead_) return;
  StepFailure failure = connection_->waiter().failure(rc, "-");
  if (failure.error.starts_with("-: ")) failure.error.erase(0, 3);
  StepFailure named = via(hop_->name(), failure);
  for (auto& t : tunnels_) {
    {
      std::lock_guard lock(t->shared->mutex);
      t->shared->failure = named;
    }
    ::shutdown(t->end.native_handle(), SHUT_RDWR);
  }
  if (opening_) opening_->done(Dialed{Fd(), nullptr, named});
  opening_.reset();
  auto hop = hop_;
  close();
  hop->link_failed(this, failure);
}

}  // namespace

std::shared_ptr<Route> jump_route(std::string name, HostPlan plan, Credentials& credentials,
                                  SetupGate& gate, asio::any_io_executor ex) {
  auto& context = static_cast<asio::io_context&>(asio::query(ex, asio::execution::context));
  return std::make_shared<JumpHop>(std::move(name), std::move(plan), credentials, gate,
                                   asio::make_strand(context));
}

}  // namespace pdx
