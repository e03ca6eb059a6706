#include "distribute/pull/pull_link.h"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <system_error>
#include <thread>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "base/quiet_threads.h"
#include "distribute/progress_meter.h"
#include "transport/input_source.h"

namespace pdx {

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr auto kHeartbeatEvery = 1s;    // well within the agent's kRelayStall
constexpr std::size_t kKeptOut = 4096;  // of the agent's stdout: its frames are few and short

// The host's link: its thread connects, then takes the stream into the receiver. The host's
// task ends it (abandon()) once the agent's command is over, and waits for it.
class Link {
 public:
  Link(std::string secret, PullReceiver& receiver, ProgressMeter* progress,
       std::function<void()> done)
      : secret_(std::move(secret)),
        receiver_(receiver),
        progress_(progress),
        done_(std::move(done)) {}
  ~Link() {
    if (thread_.joinable()) thread_.join();
  }

  const std::string& secret() const { return secret_; }
  enum class State { waiting, linked, failed };
  // The state, and `wake` once at its next change while it is waiting.
  State state(std::function<void()> wake = {}) {
    std::lock_guard lock(mutex_);
    if (state_ == State::waiting && wake) wakes_.push_back(std::move(wake));
    return state_;
  }

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
  // The agent's command is over, or its reply was malformed: a link still up is cut, one not
  // begun never is (its stdin ends). Whether a thread is still to end (then done() comes).
  bool abandon() {
    std::vector<std::function<void()>> wakes;
    bool running = false;
    {
      std::lock_guard lock(mutex_);
      abandoned_ = true;
      if (link_) link_->cut();
      if (!started_ && state_ == State::waiting) {
        state_ = State::failed;
        wakes.swap(wakes_);
      }
      running = started_ && !ended_;
    }
    for (auto& wake : wakes) wake();
    return running;
  }
  // Once the thread has ended (or none started).
  bool gave_up() {
    std::lock_guard lock(mutex_);
    return gave_up_;
  }
  std::string why() {
    std::lock_guard lock(mutex_);
    return why_;
  }

 private:
  void run(const RelayPeer& peer) {
    auto link = direct_connect(peer, secret_, LinkFlow::to_connector);
    bool linked = false;
    std::vector<std::function<void()>> wakes;
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
    if (linked) receive();
    std::lock_guard lock(mutex_);
    ended_ = true;
    done_();  // only posts
  }

  // The stream into the receiver, to its end; pdx is there every kHeartbeatEvery meanwhile.
  void receive() {
    std::jthread beat([this](std::stop_token stop) {
      std::mutex mutex;
      std::condition_variable_any never;
      std::unique_lock lock(mutex);
      while (!never.wait_for(lock, stop, kHeartbeatEvery, [] { return false; })) {
        if (stop.stop_requested()) return;
        link_->heartbeat();
      }
    });
    for (;;) {
      auto chunk = link_->receive(kRelayStall);
      if (!chunk) {
        receiver_.abandon();
        std::lock_guard lock(mutex_);
        gave_up_ = link_->gave_up();
        why_ = chunk.error();
        return;
      }
      if (!*chunk) break;
      receiver_.take(**chunk);
      if (progress_) progress_->add_bytes((*chunk)->size());
      if (receiver_.failed()) {  // unpack refused it: the rest is not wanted
        receiver_.abandon();
        link_->cut();
        return;
      }
    }
    receiver_.end();
    beat.request_stop();
    beat.join();
    if (!receiver_.failed()) link_->passed_on();
    std::lock_guard lock(mutex_);
    link_.reset();  // closed: the agent's finish() returns once it sees it (or fails, without
                    // the passed on)
  }

  const std::string secret_;
  PullReceiver& receiver_;
  ProgressMeter* const progress_;
  const std::function<void()> done_;
  std::mutex mutex_;               // for what follows
  std::optional<RelayLink> link_;  // while linked
  State state_ = State::waiting;
  std::vector<std::function<void()>> wakes_;
  std::string why_;
  bool started_ = false, abandoned_ = false, ended_ = false, gave_up_ = false;
  std::thread thread_;
};

// The agent's stdin: its setup, then relay_go once linked (the end of input instead when not:
// the agent then ends at once), then the end.
class LinkInput final : public InputSource {
 public:
  explicit LinkInput(Link& link, const RelayOptions& options) : link_(link) {
    RelaySetup setup{link.secret(), false, options.bind, options.low, options.high, true};
    pending_ = encode_frame(FrameType::relay_setup, encode(setup));
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

// The agent's replies: where it listens goes to the link; the first bytes of stdout kept for
// start_agent (whether there were any, and a shell's text before them), stderr's end too.
class LinkReply final : public JobIo {
 public:
  explicit LinkReply(Link& link) : link_(link) {}
  void output(std::size_t, Stream stream, std::string_view bytes) override {
    if (stream == Stream::err) return keep_stderr_tail(reply.err, bytes);
    if (reply.out.size() < kKeptOut) reply.out += bytes.substr(0, kKeptOut - reply.out.size());
    if (!error.empty()) return;
    auto taken = take_frames(decoder_, bytes, [this](const Frame& frame) -> Result<void> {
      if (frame.type != FrameType::relay_listening)
        return Error{"an unexpected frame", ErrorKind::bad_input};
      link_.listening(TRY(decode_relay_peer(frame.payload)));
      return {};
    });
    if (!taken) {
      error = "malformed reply from the agent: " + taken.error();
      link_.abandon();
    }
  }

  ReplySink::Reply reply;
  std::string error;  // a malformed reply

 private:
  Link& link_;
  FrameDecoder decoder_;
};

}  // namespace

asio::awaitable<LinkedPull> pull_over_link(Session& session, const Job& job,
                                           const std::string& command, PullReceiver& receiver,
                                           const RelayOptions& options, ProgressMeter* progress,
                                           StopSignal& stop) {
  LinkedPull ran;
  auto secret = make_relay_secret();
  if (!secret) {
    ran.error = secret.error();
    co_return ran;
  }
  auto ex = co_await asio::this_coro::executor;
  // Never expires: cancelled from the strand once the link's thread has ended.
  auto done = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
  Link link(std::move(*secret), receiver, progress, [weak = std::weak_ptr(done), ex] {
    asio::post(ex, [weak] {
      if (auto timer = weak.lock()) timer->cancel();
    });
  });
  LinkInput input(link, options);
  LinkReply reply(link);
  ExecRequest request{command, job.env, job.command_timeout, &input};
  reply.reply.result = co_await session.exec(request, reply, stop);
  // A thread ending now posts its wake-up after this wait starts: the strand is held until then.
  while (link.abandon()) {
    boost::system::error_code ignored;
    co_await done->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  ran.linked = link.state() == Link::State::linked;
  ran.gave_up = link.gave_up();
  ran.reply = std::move(reply.reply);
  ran.error = !reply.error.empty() ? reply.error : link.why();
  co_return ran;
}

}  // namespace pdx
