#include "agent/agent_relay.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "agent/link_beat.h"
#include "agent/record_input.h"
#include "agent/relay_bridge.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "agent/relay_queue.h"
#include "base/fd.h"
#include "base/quiet_threads.h"
#include "base/strings.h"

namespace pdx {

namespace {

using namespace std::chrono_literals;
using Clock = RelayLink::Clock;

constexpr auto kLinkTime = 30s;  // for the chain to link up, from this host's setup
constexpr std::size_t kChunk = 1024 * 1024;
constexpr std::chrono::milliseconds kHeartbeatEvery = 1s;  // a receiving host says it is there
// How long it waits when the host before gave up (it waited kBridgeWait for its own bridge): a
// bridge around it from the one before, if any, is waiting to be taken by now.
constexpr auto kBridgeLate = 2s;

// Who sends this host the stream, in errors: pdx for a star's host (RelaySetup::direct).
std::string broke_off(bool fed_by_pdx, const std::string& error) {
  return std::string("the stream from ") + (fed_by_pdx ? "pdx" : "upstream") +
         " broke off: " + error;
}

// The listener, and the upstream link accepted on it on a thread of its own while this host
// links downstream (the relay links up from its leaves: each host's connects wait for its
// children's accepts). Shared, so that a host whose relay is called off can leave without
// waiting for it; the listener stays open for a bridge.
struct Upstream {
  RelayListener listener;
  std::mutex mutex;
  std::optional<RelayLink> link;
  std::string error;
};

// The link from upstream, with a thread saying this host is there (RelayLink::heartbeat) while
// it is held. When it breaks or stalls, this host waits for a bridge from the host before the
// one that broke (agent/relay_queue.h), and tells it the offset it holds: the stream goes
// on, seamless. A link from pdx itself (RelaySetup::direct, a star push) has nobody to bridge it:
// when it breaks, the stream has.
class UpstreamLink {
 public:
  UpstreamLink(std::shared_ptr<Upstream> upstream, std::string secret, RelayLink link, bool bridged)
      : upstream_(std::move(upstream)), secret_(std::move(secret)), bridged_(bridged) {
    hold(std::move(link));
  }
  ~UpstreamLink() { drop(); }

  // The next chunk, at the start of `buffer` (RelayLink::receive); "" at the end.
  Result<std::string_view> next(std::string& buffer) {
    for (;;) {
      auto chunk = link_->receive(kRelayStall, buffer);
      if (chunk && !*chunk) {
        std::lock_guard lock(mutex_);
        ended_ = true;  // the link is held, and heartbeats go on, until passed_on()
        // Nothing more to take: a bridge from a host that lost the one before this (after it
        // had passed the end on) is refused at once, not held in the backlog until it gives up.
        upstream_->listener.fd.reset();
        return std::string_view();
      }
      if (chunk) {
        offset_ += (*chunk)->size();
        return **chunk;
      }
      if (!bridged_) return Error{chunk.error()};
      std::chrono::milliseconds wait = link_->gave_up() ? kBridgeLate : kBridgeWait;
      drop();  // the host before, if it is there, sees this end give up on it
      auto bridge =
          RelayLink::accept(upstream_->listener.fd.get(), secret_, Clock::now() + wait, offset_);
      if (!bridge)
        return Error{chunk.error() + ", and no bridge came in " +
                     std::to_string(wait.count() / 1000) + " s"};
      hold(std::move(*bridge));
    }
  }
  // Every host after this one has the whole stream (or was given up on): the host before is
  // told, and the link dropped.
  void passed_on() {
    if (ended_ && link_) link_->passed_on();
    drop();
  }
  // Whether its upstream is gone, or going (what it sent is still being read), before the
  // stream's end: waiting for a bridge, or soon. Safe from any thread.
  bool lost() const {
    std::lock_guard lock(mutex_);
    return !ended_ && (!link_ || link_->hung_up());
  }

 private:
  void hold(RelayLink link) {
    {
      std::lock_guard lock(mutex_);
      link_.emplace(std::move(link));
    }
    heartbeats_.emplace(kHeartbeatEvery, [this] { link_->heartbeat(); });
  }
  void drop() {
    heartbeats_.reset();  // stops and joins it
    std::lock_guard lock(mutex_);
    link_.reset();
  }

  std::shared_ptr<Upstream> upstream_;
  std::string secret_;
  bool bridged_;
  mutable std::mutex mutex_;  // link_'s and ended_'s changes, against lost()
  std::optional<RelayLink> link_;
  bool ended_ = false;  // the stream came whole
  std::optional<LinkBeat> heartbeats_;
  std::uint64_t offset_ = 0;  // of the stream, taken so far
};

// Where the stream comes from: the head's stdin, or the upstream link.
class Source {
 public:
  explicit Source(int in) : in_(in) {}
  Source(std::shared_ptr<Upstream> upstream, std::string secret, RelayLink link, bool bridged)
      : link_(std::in_place, std::move(upstream), std::move(secret), std::move(link), bridged) {}
  // The next chunk, at the start of `buffer` (grown as needed); "" at the end.
  Result<std::string_view> next(std::string& buffer) {
    if (link_) return link_->next(buffer);
    if (buffer.size() < kChunk) buffer.resize(kChunk);
    for (;;) {
      ssize_t n = ::read(in_, buffer.data(), kChunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
      return std::string_view(buffer.data(), std::size_t(n));
    }
  }
  // Its upstream broke: it has nothing to bridge others with.
  bool lost() const { return link_ && link_->lost(); }
  // The stream has gone on from here to the end (UpstreamLink::passed_on).
  void passed_on() {
    if (link_) link_->passed_on();
  }

 private:
  int in_ = -1;
  std::optional<UpstreamLink> link_;
};

// The stream from `source` to this host's receive (which takes it with take_local(), on its own
// thread) and to each host it forwards to, each on a thread of its own, through a RelayQueue: a
// host forwards while it receives and while it writes. A local reader that stops (its receive
// failed) does not stop the forwarding; a host that breaks off or stalls does not stop the others
// nor the local writing, and is bridged: the hosts it forwarded to are linked to from here, each
// from the offset it holds, out of the queue's history; with none left the stream is still read to
// its end, so that upstream is not held up.
class Tee {
 public:
  static constexpr std::size_t kLocal = 0;  // the reader of the receive; then one per link

  // `fed_by_pdx`: its upstream is pdx (RelaySetup::direct), which bridges around this host when
  // its stream breaks: the hosts after it are not told it gave up.
  Tee(Source& source, std::vector<RelayLink>& next, const RelayNext& peers, std::string secret,
      bool fed_by_pdx)
      : fed_by_pdx_(fed_by_pdx),
        source_(source),
        next_(next),
        peers_(peers),
        errors_(next.size()),
        queue_(1 + next.size(), relay_history(relay_levels(peers.peers))),
        bridges_(
            queue_, std::move(secret), [this] { return source_.lost(); },
            fed_by_pdx ? RelayBridges::OnBreak::drop : RelayBridges::OnBreak::give_up) {}

  // On a thread that blocks Ctrl-C: the ones it starts inherit that.
  void run() {
    {
      std::vector<std::jthread> readers;  // joined on every way out, after the queue has ended
      try {
        for (std::size_t i = 0; i < next_.size(); ++i)
          readers.emplace_back([this, i] { forward(i); });
      } catch (const std::system_error& e) {
        source_error = std::string("cannot start a thread: ") + e.what();
        return queue_.end(RelayQueue::End::broken);
      }
      read_source();
    }
    source_.passed_on();
  }
  // What broke off downstream and what was bridged, one line ("" when every link went on).
  std::string next_error() const {
    std::string all;
    for (const auto& e : errors_)
      if (!e.empty()) all += (all.empty() ? "" : "; ") + e;
    return all;
  }
  std::string source_error;  // the stream did not come whole: the host cannot be complete

  // The receive's next chunk, held in `chunk` until the next call (RecordInput::Next); "" at
  // the end.
  Result<std::string_view> take_local(RelayQueue::Chunk& chunk) {
    std::optional<RelayQueue::End> how;
    chunk = queue_.take(kLocal, how);
    if (chunk) return std::string_view(*chunk);
    if (how == RelayQueue::End::whole) return std::string_view();
    return Error{"the stream broke off"};  // source_error says how
  }
  // The receive takes no more (it stopped early): the forwarding goes on without it.
  void local_done() { queue_.leave(kLocal); }

 private:
  void read_source() {
    for (std::string buffer = queue_.spare();;) {
      auto chunk = source_.next(buffer);
      if (!chunk) {
        source_error = broke_off(fed_by_pdx_, chunk.error());
        return queue_.end(RelayQueue::End::broken);
      }
      if (chunk->empty()) return queue_.end(RelayQueue::End::whole);
      // A record fills its buffer, which the queue then holds (and hands back once every reader
      // has taken it); a pipe gives 64 KiB a read, and only what came is copied out of the
      // buffer, kept for the next.
      if (chunk->size() < buffer.size() / 2) {
        queue_.put(std::string(*chunk));
        continue;
      }
      buffer.resize(chunk->size());
      queue_.put(std::move(buffer));  // false: nobody takes it, drained
      buffer = queue_.spare();
    }
  }
  void forward(std::size_t i) {
    errors_[i] = bridges_.relay_on(next_[i], 1 + i, peers_.peers[i], std::nullopt);
  }

  const bool fed_by_pdx_;
  Source& source_;
  std::vector<RelayLink>& next_;
  const RelayNext& peers_;
  std::vector<std::string> errors_;  // by link
  RelayQueue queue_;
  RelayBridges bridges_;
};

// A host that forwards to nobody (a star's, a chain's last): its receive reads the stream itself,
// off the link's records (RecordInput), with no thread, queue or pipe between. What a receive
// that stopped early left is taken to the end, so that upstream is not held up, and then
// upstream is told this host has passed it on (to nobody).
Result<Summary> receive_alone(Source& source, int out, const RelayConsumer& local,
                              bool fed_by_pdx) {
  RecordInput input([&source](std::string& buffer) { return source.next(buffer); });
  auto received = local(input, out);
  auto rest = input.drain();
  source.passed_on();
  // No relay_end from a host whose stream broke: it did not pass it on (pdx bridges around a
  // head that ended so).
  if (!rest) {
    if (!received) return Error{broke_off(fed_by_pdx, rest.error())};
    return received;
  }
  TRY(write_frame(out, FrameType::relay_end, encode(RelayStatus{})));
  return received;
}

}  // namespace

Result<Summary> agent_relay(int in, int out, const RelayConsumer& local) {
  Frame setup_frame = TRY(read_frame(in, FrameType::relay_setup));
  RelaySetup setup = TRY(decode_relay_setup(setup_frame.payload));
  std::string address = setup.bind.empty() ? ssh_address() : setup.bind;
  auto upstream = std::make_shared<Upstream>();
  RelayPeer listening{address, 0};
  if (!setup.head) {
    upstream->listener = TRY(relay_listen(address, setup.low, setup.high));
    listening.port = upstream->listener.port;
    auto deadline = Clock::now() + kLinkTime;
    QuietThreads quiet;  // it may outlive the relay: Ctrl-C is the process's, not its
    std::thread([upstream, secret = setup.secret, deadline] {
      auto link = RelayLink::accept(upstream->listener.fd.get(), secret, deadline, 0);
      std::lock_guard lock(upstream->mutex);
      if (link)
        upstream->link.emplace(std::move(*link));
      else
        upstream->error = link.error();
    }).detach();
  }
  TRY(write_frame(out, FrameType::relay_listening, encode(listening)));

  Frame next_frame = TRY(read_frame(in, FrameType::relay_next));
  RelayNext next_peers = TRY(decode_relay_next(next_frame.payload));
  std::vector<RelayLink> next;
  RelayStatus linked;
  for (const RelayBranch& branch : next_peers.peers) {
    auto link = RelayLink::connect(branch.peer.address, branch.peer.port, setup.secret,
                                   Clock::now() + kLinkTime);
    if (!link) {
      linked.error = link.error();
      break;
    }
    next.push_back(std::move(*link));
  }
  TRY(write_frame(out, FrameType::relay_linked, encode(linked)));
  auto go = read_frame(in, FrameType::relay_go);
  if (!go) return Error{"the relay was called off"};
  RelayGo said = TRY(decode_relay_go(go->payload));

  std::optional<Source> source;
  if (setup.head || said.over_stdin) {
    source.emplace(in);
  } else {
    // Every link is up by now (pdx says go once every host has linked downstream), so the
    // upstream one is here or failed.
    for (auto until = Clock::now() + kLinkTime;;) {
      {
        std::lock_guard lock(upstream->mutex);
        if (upstream->link) {
          source.emplace(upstream, setup.secret, std::move(*upstream->link), !setup.direct);
          break;
        }
        if (!upstream->error.empty()) return Error{upstream->error};
      }
      if (Clock::now() > until) return Error{"the previous host never connected"};
      std::this_thread::sleep_for(10ms);
    }
  }

  bool fed_by_pdx = setup.direct && !said.over_stdin;
  if (next.empty()) return receive_alone(*source, out, local, fed_by_pdx);

  Tee tee(*source, next, next_peers, setup.secret, fed_by_pdx);
  std::optional<std::thread> teeing;
  {
    QuietThreads quiet;
    teeing.emplace([&] { tee.run(); });
  }
  RelayQueue::Chunk held;
  RecordInput input([&tee, &held](std::string&) { return tee.take_local(held); });
  auto received = local(input, out);
  tee.local_done();  // a consumer that stopped early no longer holds the forwarding up
  teeing->join();
  // No relay_end from a host whose stream broke: it did not pass it on (pdx bridges around a
  // head that ended so).
  if (!tee.source_error.empty()) {
    if (!received) return Error{tee.source_error};
    return received;
  }
  TRY(write_frame(out, FrameType::relay_end, encode(RelayStatus{tee.next_error()})));
  return received;
}

}  // namespace pdx
