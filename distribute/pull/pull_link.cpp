#include "distribute/pull/pull_link.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/link_beat.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "distribute/link_thread.h"
#include "distribute/progress_meter.h"
#include "transport/input_source.h"

namespace pdx {

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr auto kHeartbeatEvery = 1s;    // well within the agent's kRelayStall
constexpr std::size_t kKeptOut = 4096;  // of the agent's stdout: its frames are few and short

// The host's link, from its agent (LinkThread): its thread takes the stream into the receiver.
class Link final : public LinkThread {
 public:
  Link(std::string secret, PullReceiver& receiver, ProgressMeter* progress)
      : LinkThread(std::move(secret), LinkFlow::to_connector),
        receiver_(receiver),
        progress_(progress) {}
  ~Link() { join(); }

  // Once the thread has ended (or none started).
  bool gave_up() {
    std::lock_guard lock(mutex_);
    return gave_up_;
  }

 private:
  // The stream into the receiver, to its end; pdx is there every kHeartbeatEvery meanwhile.
  void linked() override {
    std::optional<LinkBeat> beat;
    beat.emplace(kHeartbeatEvery, [this] { link_->heartbeat(); });
    for (;;) {
      auto chunk = link_->receive(kRelayStall);
      if (!chunk) {
        receiver_.abandon();
        {
          std::lock_guard lock(mutex_);
          gave_up_ = link_->gave_up();
        }
        return fail(chunk.error());
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
    beat.reset();
    if (!receiver_.failed()) link_->passed_on();
    std::lock_guard lock(mutex_);
    link_.reset();  // closed: the agent's finish() returns once it sees it (or fails, without
                    // the passed on)
  }

  PullReceiver& receiver_;
  ProgressMeter* const progress_;
  bool gave_up_ = false;  // under mutex_
};

// The agent's replies: where it listens goes to the link; the first bytes of stdout kept for
// start_agent (whether there were any, and a shell's text before them), stderr's end too.
class LinkReply final : public JobIo {
 public:
  explicit LinkReply(LinkThread& link) : link_(link) {}
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
  LinkThread& link_;
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
  Link link(std::move(*secret), receiver, progress);
  RelaySetup setup{link.secret(), false, options.bind, options.low, options.high, true};
  LinkInput input(link, encode_frame(FrameType::relay_setup, encode(setup)));
  LinkReply reply(link);
  reply.reply.result = co_await run_linked(session, job, command, link, input, reply, stop);
  ran.linked = link.state() == LinkThread::State::linked;
  ran.gave_up = link.gave_up();
  ran.reply = std::move(reply.reply);
  ran.error = !reply.error.empty() ? reply.error : link.why();
  co_return ran;
}

}  // namespace pdx
