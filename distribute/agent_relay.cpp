#include "distribute/agent_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "archive/temp_file.h"
#include "base/fd.h"
#include "base/quiet_threads.h"
#include "base/strings.h"
#include "distribute/agent.h"
#include "distribute/relay_frames.h"
#include "distribute/relay_link.h"

namespace pdx {

namespace {

using namespace std::chrono_literals;
using Clock = RelayLink::Clock;

constexpr auto kLinkTime = 30s;  // for the chain to link up, from this host's setup
constexpr std::chrono::milliseconds kIdle = 120s;  // upstream silent this long: it is gone
constexpr std::size_t kChunk = 1024 * 1024;

Result<void> send(int out, FrameType type, const std::string& payload) {
  std::string frame = encode_frame(type, payload);
  return write_all(out, frame.data(), frame.size(), "standard output");
}

// The address this host's ssh session came in on (SSH_CONNECTION's third field): the one pdx
// reached it by, so the one its neighbours are most likely to reach it by too.
std::string own_address() {
  const char* connection = std::getenv("SSH_CONNECTION");
  auto fields = split_blanks(connection ? connection : "");
  return fields.size() == 4 ? std::string(fields[2]) : "127.0.0.1";
}

// The upstream link, accepted on a thread of its own while this host links downstream (the
// chain links up from its tail: each host's connect waits for the next one's accept). Shared,
// so that a host whose relay is called off can leave without waiting for it.
struct Upstream {
  std::mutex mutex;
  std::optional<RelayLink> link;
  std::string error;
};

// Where the stream comes from: the head's stdin, or the upstream link.
class Source {
 public:
  explicit Source(int in) : in_(in) {}
  explicit Source(RelayLink link) : link_(std::move(link)) {}
  // The next chunk; "" at the end.
  Result<std::string> next() {
    if (link_) {
      auto chunk = TRY(link_->receive(kIdle));
      return chunk ? std::move(*chunk) : std::string();
    }
    std::string buffer(kChunk, '\0');
    for (;;) {
      ssize_t n = ::read(in_, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
      buffer.resize(std::size_t(n));
      return buffer;
    }
  }

 private:
  int in_ = -1;
  std::optional<RelayLink> link_;
};

// Copies the stream from `source` into `local` (this host's receive) and to `next`, chunk by
// chunk. A local reader that stops (its receive failed) does not stop the forwarding; a next
// host that breaks off does not stop the local writing.
struct Tee {
  std::string source_error;  // the stream did not come whole: the host cannot be complete
  std::string next_error;    // the next host broke off

  void run(Source& source, int local, std::optional<RelayLink>& next) {
    bool writing = true;
    for (;;) {
      auto chunk = source.next();
      if (!chunk) {
        source_error = "the stream from upstream broke off: " + chunk.error();
        break;  // the next host sees its link close, never a clean end
      }
      if (chunk->empty()) {
        if (next)
          if (auto ended = next->finish(); !ended) next_error = ended.error();
        break;
      }
      if (writing && !write_all(local, chunk->data(), chunk->size(), "the receive"))
        writing = false;
      if (next)
        if (auto sent = next->send(*chunk); !sent) {
          next_error = sent.error();
          next.reset();
        }
    }
    ::close(local);
  }
};

}  // namespace

Result<Summary> agent_relay(const std::string& dest, int in, int out) {
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
  TRY(send(out, FrameType::relay_listening, encode(listening)));

  Frame next_frame = TRY(read_frame(in, FrameType::relay_next));
  RelayPeer next_peer = TRY(decode_relay_peer(next_frame.payload));
  std::optional<RelayLink> next;
  RelayStatus linked;
  if (!next_peer.address.empty()) {
    auto link = RelayLink::connect(next_peer.address, next_peer.port, setup.secret,
                                   Clock::now() + kLinkTime);
    if (link)
      next.emplace(std::move(*link));
    else
      linked.error = link.error();
  }
  TRY(send(out, FrameType::relay_linked, encode(linked)));
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
  Tee tee;
  std::optional<std::thread> forwarding;
  {
    QuietThreads quiet;
    forwarding.emplace([&] { tee.run(*source, pipe_fds[1], next); });
  }
  auto received = agent_receive(dest, local_in.get(), out);
  local_in.reset();  // a receive that stopped early no longer holds the forwarding up
  forwarding->join();
  TRY(send(out, FrameType::relay_end, encode(RelayStatus{tee.next_error})));
  if (!received && !tee.source_error.empty()) return Error{tee.source_error};
  return received;
}

}  // namespace pdx
