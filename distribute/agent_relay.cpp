#include "distribute/agent_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "archive/temp_file.h"
#include "base/fd.h"
#include "base/quiet_threads.h"
#include "base/strings.h"
#include "distribute/agent.h"
#include "distribute/relay_frames.h"
#include "distribute/relay_link.h"
#include "distribute/relay_queue.h"

namespace pdx {

namespace {

using namespace std::chrono_literals;
using Clock = RelayLink::Clock;

constexpr auto kLinkTime = 30s;  // for the chain to link up, from this host's setup
constexpr std::chrono::milliseconds kIdle = 120s;  // upstream silent this long: it is gone
constexpr std::size_t kChunk = 1024 * 1024;

// The address this host's ssh session came in on (SSH_CONNECTION's third field): the one pdx
// reached it by, so the one its neighbours are most likely to reach it by too.
std::string own_address() {
  const char* connection = std::getenv("SSH_CONNECTION");
  auto fields = split_blanks(connection ? connection : "");
  return fields.size() == 4 ? std::string(fields[2]) : "127.0.0.1";
}

// The upstream link, accepted on a thread of its own while this host links downstream (the
// relay links up from its leaves: each host's connects wait for its children's accepts). Shared,
// so that a host whose relay is called off can leave without waiting for it.
struct Upstream {
  std::mutex mutex;
  std::optional<RelayLink> link;
  std::string error;
};

// Where the stream comes from: the head's stdin, or the upstream link.
class Source {
 public:
  explicit Source(int in) : in_(in), buffer_(kChunk, '\0') {}
  explicit Source(RelayLink link) : link_(std::move(link)) {}
  // The next chunk; "" at the end.
  Result<std::string> next() {
    if (link_) {
      auto chunk = TRY(link_->receive(kIdle));
      return chunk ? std::move(*chunk) : std::string();
    }
    for (;;) {  // a pipe gives 64 KiB a read: only what came is copied out, not kChunk
      ssize_t n = ::read(in_, buffer_.data(), buffer_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
      return buffer_.substr(0, std::size_t(n));
    }
  }

 private:
  int in_ = -1;
  std::string buffer_;
  std::optional<RelayLink> link_;
};

// The stream from `source` to this host's receive (`local`, a pipe) and to each host it
// forwards to, each on a thread of its own through a RelayQueue: a host forwards while it
// receives and while it writes. A local reader that stops (its receive failed) does not stop
// the forwarding; a host that breaks off does not stop the others nor the local writing; with
// none left the stream is still read to its end, so that upstream is not held up.
class Tee {
 public:
  static constexpr std::size_t kLocal = 0;  // the reader of the receive; then one per link

  Tee(Source& source, int local, std::vector<RelayLink>& next)
      : source_(source),
        local_(local),
        next_(next),
        errors_(next.size()),
        queue_(1 + next.size()) {}

  // On a thread that blocks Ctrl-C: the ones it starts inherit that.
  void run() {
    std::vector<std::jthread> readers;  // joined on every way out, after the queue has ended
    try {
      for (std::size_t i = 0; i < next_.size(); ++i)
        readers.emplace_back([this, i] { forward(i); });
      readers.emplace_back([this] { write_local(); });
    } catch (const std::system_error& e) {
      source_error = std::string("cannot start a thread: ") + e.what();
      return queue_.end(RelayQueue::End::broken);
    }
    read_source();
  }
  // What broke off downstream, one line ("" when every link went on).
  std::string next_error() const {
    std::string all;
    for (const auto& e : errors_)
      if (!e.empty()) all += (all.empty() ? "" : "; ") + e;
    return all;
  }
  std::string source_error;  // the stream did not come whole: the host cannot be complete

 private:
  void read_source() {
    for (;;) {
      auto chunk = source_.next();
      if (!chunk) {
        source_error = "the stream from upstream broke off: " + chunk.error();
        return queue_.end(RelayQueue::End::broken);
      }
      if (chunk->empty()) return queue_.end(RelayQueue::End::whole);
      queue_.put(std::move(*chunk));  // false: nobody takes it, drained
    }
  }
  void forward(std::size_t i) {
    RelayQueue::End how;
    while (auto chunk = queue_.take(1 + i, how))
      if (auto sent = next_[i].send(*chunk); !sent) {
        errors_[i] = sent.error();
        next_[i].close();
        return queue_.leave(1 + i);
      }
    if (how == RelayQueue::End::whole)
      if (auto ended = next_[i].finish(); !ended) errors_[i] = ended.error();
    // broken: the next host sees its link close (when `next` goes), never a clean end
  }
  void write_local() {
    RelayQueue::End how;
    while (auto chunk = queue_.take(kLocal, how))
      if (!write_all(local_, chunk->data(), chunk->size(), "the receive")) {
        queue_.leave(kLocal);
        break;
      }
    ::close(local_);
  }

  Source& source_;
  int local_;
  std::vector<RelayLink>& next_;
  std::vector<std::string> errors_;  // by link
  RelayQueue queue_;
};

}  // namespace

Result<Summary> agent_relay(int in, int out, const RelayConsumer& local) {
  Frame setup_frame = TRY(read_frame(in, FrameType::relay_setup));
  RelaySetup setup = TRY(decode_relay_setup(setup_frame.payload));
  std::string address = setup.bind.empty() ? own_address() : setup.bind;
  auto upstream = std::make_shared<Upstream>();
  RelayPeer listening{address, 0};
  if (!setup.head) {
    RelayListener listener = TRY(relay_listen(address, setup.low, setup.high));
    listening.port = listener.port;
    auto deadline = Clock::now() + kLinkTime;
    QuietThreads quiet;  // it may outlive the relay: Ctrl-C is the process's, not its
    std::thread([upstream, listener = std::move(listener), secret = setup.secret, deadline] {
      auto link = RelayLink::accept(listener.fd.get(), secret, deadline);
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
  for (const RelayPeer& peer : next_peers.peers) {
    auto link = RelayLink::connect(peer.address, peer.port, setup.secret, Clock::now() + kLinkTime);
    if (!link) {
      linked.error = link.error();
      break;
    }
    next.push_back(std::move(*link));
  }
  TRY(write_frame(out, FrameType::relay_linked, encode(linked)));
  auto go = read_frame(in, FrameType::relay_go);
  if (!go) return Error{"the relay was called off"};

  std::optional<Source> source;
  if (setup.head) {
    source.emplace(in);
  } else {
    // Every link is up by now (pdx says go once every host has linked downstream), so the
    // upstream one is here or failed.
    for (auto until = Clock::now() + kLinkTime;;) {
      {
        std::lock_guard lock(upstream->mutex);
        if (upstream->link) {
          source.emplace(std::move(*upstream->link));
          break;
        }
        if (!upstream->error.empty()) return Error{upstream->error};
      }
      if (Clock::now() > until) return Error{"the previous host never connected"};
      std::this_thread::sleep_for(10ms);
    }
  }

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    return Error{std::string("cannot make a pipe: ") + std::strerror(errno)};
  Fd local_in(pipe_fds[0]);
  // A larger pipe (1 MiB, Linux's limit for anyone): fewer hand-overs between the writing
  // thread and the receive, each a wake-up; where it is refused, 64 KiB does too.
  ::fcntl(pipe_fds[1], F_SETPIPE_SZ, int(kChunk));
  Tee tee(*source, pipe_fds[1], next);
  std::optional<std::thread> teeing;
  {
    QuietThreads quiet;
    teeing.emplace([&] { tee.run(); });
  }
  auto received = local(local_in.get(), out);
  local_in.reset();  // a consumer that stopped early no longer holds the forwarding up
  teeing->join();
  TRY(write_frame(out, FrameType::relay_end, encode(RelayStatus{tee.next_error()})));
  if (!received && !tee.source_error.empty()) return Error{tee.source_error};
  return received;
}

}  // namespace pdx
