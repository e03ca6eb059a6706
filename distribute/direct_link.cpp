#include "distribute/direct_link.h"

#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "agent/agent_protocol.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "distribute/link_thread.h"
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

// One host's link, to its agent (LinkThread): its thread sends the host's reader of the group's
// stream. Shared with the wake-ups it gives the group's Broadcast, which may still be running as
// the host's task lets go of it.
class Link final : public LinkThread, public std::enable_shared_from_this<Link> {
 public:
  Link(std::string secret, Broadcast& source, std::size_t reader)
      : LinkThread(std::move(secret), LinkFlow::to_listener), source_(source), reader_(reader) {}
  ~Link() { join(); }

 private:
  void linked() override {
    send();
    source_.finish(reader_);
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

  Broadcast& source_;
  const std::size_t reader_;
  bool ready_ = false;  // under mutex_
};

// The agent's replies: where it listens goes to the link, relay_linked and relay_end are taken
// out, the receive's frames kept as ReplySink keeps them.
class DirectReply final : public JobIo {
 public:
  explicit DirectReply(LinkThread& link) : link_(link) {}
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

  LinkThread& link_;
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
                                          StopSignal& stop, HeldAgent* held) {
  DirectRan ran;
  auto secret = make_relay_secret();
  if (!secret) {
    ran.error = secret.error();
    co_return ran;
  }
  auto shared = std::make_shared<Link>(std::move(*secret), source, reader);
  Link& link = *shared;
  RelaySetup setup{link.secret(), false, options.bind, options.low, options.high, true};
  LinkInput input(link, encode_frame(FrameType::relay_setup, encode(setup)) +
                            encode_frame(FrameType::relay_next, encode(RelayNext{})));
  DirectReply reply(link);
  reply.reply.result = co_await run_linked(session, job, command, link, input, reply, stop, held);
  ran.linked = link.state() == LinkThread::State::linked;
  ran.reply = std::move(reply.reply);
  ran.error = !reply.error.empty() ? reply.error : link.why();
  co_return ran;
}

asio::awaitable<ReplySink::Reply> star_receive(
    StagingRun& run, DataVia via, const RelayOptions& options, Session& session, const Job& job,
    Broadcast& source, std::size_t reader, std::uint64_t bytes, const std::string& star,
    const std::string& relay, HeldAgent* held, std::string& error, StopSignal& stop) {
  if (direct_wanted(via, session, bytes)) {
    DirectRan ran =
        co_await direct_receive(session, job, relay, source, reader, options, stop, held);
    if (ran.linked || ran.reply.result.failure != Failure::none) co_return std::move(ran.reply);
    std::string why = !ran.error.empty() ? ran.error : host_said(ran.reply);
    if (via == DataVia::direct) {
      error = "no direct data link: " + why;
      co_return ReplySink::Reply{};
    }
    run.note_over_ssh(job.index, std::move(why));
  }
  BroadcastInput input(source, reader);
  if (held && held->waiting()) co_return co_await held->receive(input);
  co_return co_await run_command(session, job, star, &input, stop);
}

}  // namespace pdx
