#include "distribute/direct_link.h"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "base/quiet_threads.h"
#include "distribute/staging_run.h"

namespace pdx {

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using Clock = RelayLink::Clock;

constexpr auto kKeepalive = 2s;  // what a waiting sender says, well within the agent's kRelayStall

std::optional<RelayPeer> test_via() {
  const char* via = std::getenv("PDX_TEST_DIRECT_VIA");
  if (!via) return std::nullopt;
  std::string text = via;
  auto colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  return RelayPeer{text.substr(0, colon), std::uint16_t(std::atoi(text.c_str() + colon + 1))};
}

// One host's link: what its stdin, its replies and its sending thread share. The thread connects,
// then sends the host's reader of the group's stream; the host's task ends it (abandon()) once
// the agent's command is over, and waits for it. Shared with the wake-ups it gives the group's
// Broadcast, which may still be running as the host's task lets go of it.
class Link : public std::enable_shared_from_this<Link> {
 public:
  enum class State { waiting, linked, failed };

  Link(std::string secret, Broadcast& source, std::size_t reader, std::function<void()> done)
      : secret_(std::move(secret)), source_(source), reader_(reader), done_(std::move(done)) {}
  ~Link() {
    if (thread_.joinable()) thread_.join();
  }

  const std::string& secret() const { return secret_; }

  // The agent listens at `peer` (from its reply, on the host's strand): the thread starts.
  void listening(RelayPeer peer) {
    std::lock_guard lock(mutex_);
    if (started_ || abandoned_) return;
    started_ = true;
    try {
      QuietThreads quiet;  // Ctrl-C is the main thread's
      thread_ = std::thread([this, peer = std::move(peer)] { run(peer); });
    } catch (const std::system_error& e) {
      started_ = false;
      state_ = State::failed;
      why_ = std::string("cannot start a thread: ") + e.what();
    }
  }
  // The state, and `wake` once at its next change while it is waiting.
  State state(std::function<void()> wake = {}) {
    std::lock_guard lock(mutex_);
    if (state_ == State::waiting && wake) wakes_.push_back(std::move(wake));
    return state_;
  }
  // The agent's command is over: the thread stops (a link still up is cut). Whether a thread is
  // still to end (then done() comes).
  bool abandon() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    if (link_) link_->cut();
    moved_.notify_all();
    return started_ && !ended_;
  }
  // Once the thread has ended (or none started): why there is no link, or what failed on it.
  std::string why() {
    std::lock_guard lock(mutex_);
    return why_;
  }

 private:
  void run(const RelayPeer& peer) {
    auto link = direct_connect(peer, secret_);
    std::vector<std::function<void()>> wakes;
    bool linked = false;
    {
      std::lock_guard lock(mutex_);
      linked = link && !abandoned_;
      if (linked) {
        link_.emplace(std::move(*link));
        state_ = State::linked;
      } else {
        state_ = State::failed;
        why_ = link ? "the host's command ended" : link.error();
      }
      wakes.swap(wakes_);
    }
    for (auto& wake : wakes) wake();
    if (linked) {
      send();
      source_.finish(reader_);
    }
    std::lock_guard lock(mutex_);
    ended_ = true;
    done_();  // only posts
  }

  // Reader j's stream over the link, to its end.
  void send() {
    source_.on_stall(reader_,
                     [self = shared_from_this()](const std::string& error) { self->fail(error); });
    for (;;) {
      InputPiece piece = source_.next(reader_);
      switch (piece.state) {
        case InputPiece::State::data: {
          std::size_t n = piece.bytes.size();
          for (std::string_view bytes = piece.bytes; !bytes.empty();) {
            std::string_view part = bytes.substr(0, kRelayMaxChunk);
            if (auto sent = link_->send(part); !sent) return fail(sent.error());
            bytes.remove_prefix(part.size());
          }
          source_.consume(reader_, n);
          break;
        }
        case InputPiece::State::wait:
          if (!await_more()) return;
          break;
        case InputPiece::State::end:
          if (auto finished = link_->finish(); !finished) fail(finished.error());
          return;
        case InputPiece::State::failed:
          link_->give_up();
          return fail(piece.error);
      }
    }
  }
  // Waits for the reader's next piece, saying it is there every kKeepalive; false when
  // abandoned or the link broke.
  bool await_more() {
    std::unique_lock lock(mutex_);
    ready_ = false;
    lock.unlock();
    source_.on_ready(reader_, [self = shared_from_this()] {
      std::lock_guard woken(self->mutex_);
      self->ready_ = true;
      self->moved_.notify_all();
    });
    lock.lock();
    while (!ready_ && !abandoned_) {
      if (moved_.wait_for(lock, kKeepalive) != std::cv_status::timeout) continue;
      lock.unlock();
      auto alive = link_->keepalive();
      lock.lock();
      if (!alive) {
        if (why_.empty()) why_ = alive.error();
        return false;
      }
    }
    return !abandoned_;
  }
  void fail(const std::string& error) {
    std::lock_guard lock(mutex_);
    if (why_.empty()) why_ = error;
    if (link_) link_->cut();
  }

  const std::string secret_;
  Broadcast& source_;
  const std::size_t reader_;
  const std::function<void()> done_;
  std::mutex mutex_;  // for what follows
  std::condition_variable moved_;
  State state_ = State::waiting;
  std::vector<std::function<void()>> wakes_;
  std::optional<RelayLink> link_;  // set once, while linked
  std::string why_;
  bool started_ = false, abandoned_ = false, ended_ = false, ready_ = false;
  std::thread thread_;
};

// The agent's stdin: its setup and relay_next, then relay_go once linked (the end of input
// instead when not), then the end: its stream goes over the link.
class DirectInput final : public InputSource {
 public:
  DirectInput(Link& link, const RelayOptions& options) : link_(link) {
    RelaySetup setup{link.secret(), false, options.bind, options.low, options.high, true};
    pending_ = encode_frame(FrameType::relay_setup, encode(setup)) +
               encode_frame(FrameType::relay_next, encode(RelayNext{}));
  }
  InputPiece next() override {
    if (taken_ < pending_.size())
      return {InputPiece::State::data, std::string_view(pending_).substr(taken_), {}};
    if (went_) return {InputPiece::State::end, {}, {}};
    switch (link_.state()) {
      case Link::State::waiting:
        return {InputPiece::State::wait, {}, {}};
      case Link::State::failed:
        return {InputPiece::State::end, {}, {}};
      case Link::State::linked:
        break;
    }
    went_ = true;
    pending_ = encode_frame(FrameType::relay_go, "");
    taken_ = 0;
    return next();
  }
  void consume(std::size_t n) override { taken_ += n; }
  void on_ready(std::function<void()> wake) override {
    if (link_.state(wake) != Link::State::waiting) wake();
  }
  void on_stall(std::function<void(const std::string&)>) override {}
  void finish() override {}

 private:
  Link& link_;
  std::string pending_;
  std::size_t taken_ = 0;
  bool went_ = false;
};

// The agent's replies: where it listens goes to the link, relay_linked and relay_end are taken
// out, the receive's frames kept as ReplySink keeps them.
class DirectReply final : public JobIo {
 public:
  explicit DirectReply(Link& link) : link_(link) {}
  void output(std::size_t, Stream stream, std::string_view bytes) override {
    if (stream == Stream::err) return keep_stderr_tail(reply.err, bytes);
    if (!error.empty()) return;
    auto taken = take_frames(decoder_, bytes, [this](const Frame& frame) { return take(frame); });
    if (!taken) malformed(taken.error());
  }

  ReplySink::Reply reply;
  std::string error;  // a malformed reply

 private:
  Result<void> take(const Frame& frame) {
    switch (frame.type) {
      case FrameType::relay_listening:
        link_.listening(TRY(decode_relay_peer(frame.payload)));
        return {};
      case FrameType::relay_linked:
      case FrameType::relay_end:
        TRY(decode_relay_status(frame.payload));  // nobody after it: nothing to say
        return {};
      default:
        if (reply.out.size() + frame.payload.size() > ReplySink::kMaxReply) {
          reply.overflow = true;
          return {};
        }
        reply.out += encode_frame(frame.type, frame.payload);
        return {};
    }
  }
  void malformed(const std::string& why) {
    error = "malformed reply from the agent: " + why;
    link_.abandon();
  }

  Link& link_;
  FrameDecoder decoder_;
};

}  // namespace

Result<RelayLink> direct_connect(const RelayPeer& peer, std::string_view secret, LinkFlow flow) {
  RelayPeer to = test_via().value_or(peer);
  return RelayLink::connect(to.address, to.port, secret, Clock::now() + kDirectConnectTime, flow);
}

bool direct_wanted(DataVia via, const Session& session, std::uint64_t bytes) {
  switch (via) {
    case DataVia::ssh:
      return false;
    case DataVia::direct:
      return true;
    case DataVia::automatic:
      break;
  }
  return bytes >= kDirectMinBytes && session.reached_over_tcp();
}

asio::awaitable<DirectRan> direct_receive(Session& session, const Job& job,
                                          const std::string& command, Broadcast& source,
                                          std::size_t reader, const RelayOptions& options,
                                          StopSignal& stop) {
  DirectRan ran;
  auto secret = make_relay_secret();
  if (!secret) {
    ran.error = secret.error();
    co_return ran;
  }
  auto ex = co_await asio::this_coro::executor;
  // Never expires: cancelled from the strand once the sending thread has ended.
  auto done = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
  auto shared =
      std::make_shared<Link>(std::move(*secret), source, reader, [weak = std::weak_ptr(done), ex] {
        asio::post(ex, [weak] {
          if (auto timer = weak.lock()) timer->cancel();
        });
      });
  Link& link = *shared;
  DirectInput input(link, options);
  DirectReply reply(link);
  ExecRequest request{command, job.env, job.command_timeout, &input};
  reply.reply.result = co_await session.exec(request, reply, stop);
  // A thread ending now posts its wake-up after this wait starts: the strand is held until then.
  while (link.abandon()) {
    boost::system::error_code ignored;
    co_await done->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  ran.linked = link.state() == Link::State::linked;
  ran.reply = std::move(reply.reply);
  ran.error = !reply.error.empty() ? reply.error : link.why();
  co_return ran;
}

asio::awaitable<ReplySink::Reply> star_receive(StagingRun& run, DataVia via,
                                               const RelayOptions& options, Session& session,
                                               const Job& job, Broadcast& source,
                                               std::size_t reader, std::uint64_t bytes,
                                               const std::string& star, const std::string& relay,
                                               std::string& error, StopSignal& stop) {
  if (direct_wanted(via, session, bytes)) {
    DirectRan ran = co_await direct_receive(session, job, relay, source, reader, options, stop);
    if (ran.linked || ran.reply.result.failure != Failure::none) co_return std::move(ran.reply);
    std::string why = !ran.error.empty() ? ran.error : host_said(ran.reply);
    if (via == DataVia::direct) {
      error = "no direct data link: " + why;
      co_return ReplySink::Reply{};
    }
    run.note_over_ssh(job.index, std::move(why));
  }
  BroadcastInput input(source, reader);
  co_return co_await run_command(session, job, star, &input, stop);
}

}  // namespace pdx
