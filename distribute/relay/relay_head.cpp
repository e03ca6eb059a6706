#include "distribute/relay/relay_head.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace pdx {

namespace {

constexpr std::size_t kChunk = 256 * 1024;  // read at a time
// The levels below the head pdx bridges to: its children, around the head alone. The history
// that needs, two hops (the head's child lags about 17 MiB behind what pdx has sent the head:
// its ssh window, pipes and queues), is 24 MiB of pdx's memory for each relayed group; around
// the head and its child too would be 36 MiB.
constexpr std::size_t kHeadLevels = 1;

}  // namespace

Result<std::unique_ptr<HeadFeed>> HeadFeed::start(int stream, std::string secret,
                                                  std::vector<RelayBranch> below,
                                                  std::chrono::milliseconds stall,
                                                  std::function<void(std::size_t bytes)> on_consume,
                                                  std::optional<RelayLink> link) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Error{std::string("cannot make a pipe: ") + std::strerror(errno)};
  return std::unique_ptr<HeadFeed>(new HeadFeed(stream, std::move(secret), std::move(below), stall,
                                                std::move(on_consume), std::move(link), Fd(fds[0]),
                                                Fd(fds[1])));
}

HeadFeed::HeadFeed(int stream, std::string secret, std::vector<RelayBranch> below,
                   std::chrono::milliseconds stall, std::function<void(std::size_t)> on_consume,
                   std::optional<RelayLink> link, Fd stop_read, Fd stop_write)
    : stream_(stream),
      below_(relay_levels_cut(std::move(below), kHeadLevels)),
      stall_(stall),
      on_consume_(std::move(on_consume)),
      stop_read_(std::move(stop_read)),
      stop_write_(std::move(stop_write)),
      queue_(1, relay_history(1 + relay_levels(below_))),
      bridges_(queue_, std::move(secret), [] { return false; }),
      link_(std::move(link)),
      thread_([this] { read_loop(); }) {
  try {
    if (link_) sender_ = std::thread([this] { send_loop(); });
  } catch (const std::system_error&) {  // the head sees its link break: bridged around, or failed
    link_->cut();
  }
}

HeadFeed::~HeadFeed() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  (void)!::write(stop_write_.get(), "x", 1);
  if (link_) link_->cut();  // before the sender can see the end and drop the link itself
  {
    std::lock_guard lock(mutex_);
    if (!ended_) queue_.end(RelayQueue::End::broken);  // a bridge's link gives up: no clean end
  }
  leave_head();  // a put waiting for room returns
  thread_.join();
  if (sender_.joinable()) sender_.join();
  if (bridge_.joinable()) bridge_.join();
}

InputPiece HeadFeed::next() {
  {
    std::lock_guard lock(mutex_);
    if (left_ && !bridging_)  // failed for its stall: what follows is not its
      return {InputPiece::State::failed, {}, "took nothing of its input for too long"};
  }
  if (!held_ || taken_ == held_->size()) {
    std::optional<RelayQueue::End> how;
    held_ = queue_.take(0, how, std::chrono::milliseconds(0));
    taken_ = 0;
    if (!held_) {
      if (how == RelayQueue::End::whole) return {InputPiece::State::end, {}, {}};
      if (how) return {InputPiece::State::failed, {}, "the stream broke off here"};
      return {InputPiece::State::wait, {}, {}};
    }
  }
  return {InputPiece::State::data, std::string_view(*held_).substr(taken_), {}};
}

void HeadFeed::consume(std::size_t n) {
  taken_ += n;
  if (on_consume_) on_consume_(n);
}

void HeadFeed::on_ready(std::function<void()> wake) {
  queue_.on_ready(0, std::move(wake));
}

void HeadFeed::on_stall(std::function<void(const std::string&)> fail) {
  std::lock_guard lock(mutex_);
  fail_ = std::move(fail);
}

void HeadFeed::head_ended(bool gone) {
  if (link_) link_->cut();  // its sender stops, reader 0 left where it was
  std::lock_guard lock(mutex_);
  if (bridging_ || left_) return;
  if (!gone || below_.empty() || stopping_) return let_go();
  try {  // reader 0 holds the history until the bridges have joined
    bridge_ = std::thread([this] {
      std::string said = bridges_.bridge(below_, [this] {
        std::lock_guard held(mutex_);
        let_go();
      });
      std::lock_guard held(mutex_);
      bridged_ = std::move(said);
    });
    bridging_ = true;
  } catch (const std::system_error&) {  // no bridge, then: the hosts below fail as without it
    let_go();
  }
}

std::string HeadFeed::bridged() {
  std::lock_guard joining(join_mutex_);
  {
    std::lock_guard lock(mutex_);
    if (!bridging_) return "";
  }
  if (bridge_.joinable()) bridge_.join();
  std::lock_guard lock(mutex_);
  return bridged_;
}

void HeadFeed::leave_head() {
  std::lock_guard lock(mutex_);
  if (!bridging_) let_go();
}

void HeadFeed::let_go() {
  if (left_) return;
  left_ = true;
  queue_.leave(0);
}

// A link that breaks is cut (the head, if alive, sees it break and fails); reader 0 stays, for
// head_ended() to bridge from or let go.
void HeadFeed::send_loop() {
  if (!bridges_.serve(*link_, 0, on_consume_).empty()) link_->cut();
}

void HeadFeed::read_loop() {
  std::string buffer(kChunk, '\0');
  for (;;) {
    auto chunk = read_chunk(buffer);
    if (!chunk || chunk->empty()) {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      queue_.end(chunk ? RelayQueue::End::whole : RelayQueue::End::broken);
      ended_ = true;
      return;
    }
    while (queue_.put(*chunk, stall_) == RelayQueue::Put::stalled) {
      std::function<void(const std::string&)> fail;
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        if (bridging_) continue;  // the head is gone: the bridges are linking up
        // Failed for its stall, not bridged around (the hosts below have stopped waiting):
        // reader 0 is let go at once, so that its session's end finds it gone.
        fail = std::exchange(fail_, nullptr);
        let_go();  // nobody takes the chunk now: it goes, as the rest will
      }
      if (fail)
        fail("took nothing of its input for " + std::to_string((stall_.count() + 999) / 1000) +
             " s");
    }
  }
}

// The next read of the stream into `buffer`, copied out (a pipe gives what was written, often a
// frame of a few hundred bytes: a chunk of kChunk each would hold the history's bytes many times
// over); "" at the end, or when stopped.
Result<std::string> HeadFeed::read_chunk(std::string& buffer) {
  for (;;) {
    pollfd fds[2] = {{stream_, POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR)
      return Error{std::string("cannot poll the stream: ") + std::strerror(errno)};
    if (fds[1].revents & POLLIN) return std::string();
    if (fds[0].revents & POLLNVAL) return Error{"cannot read the stream: not open"};
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t n = ::read(stream_, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read the stream: ") + std::strerror(errno)};
    return buffer.substr(0, std::size_t(n));
  }
}

}  // namespace pdx
