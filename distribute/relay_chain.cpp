#include "distribute/relay_chain.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "core/executor.h"
#include "distribute/agent_protocol.h"
#include "distribute/relay_frames.h"
#include "distribute/relay_link.h"
#include "transport/broadcast.h"

namespace pdx {

namespace {

// What the chain's hosts have said so far, and what follows: shared by every host's input
// (pdx -> agent) and the sink (agent -> pdx), on the hosts' strands.
class Chain {
 public:
  Chain(const std::vector<Job>& jobs, std::string secret, RelayOptions options, int stream)
      : jobs_(jobs),
        secret_(std::move(secret)),
        options_(std::move(options)),
        stream_(stream),
        hosts_(jobs.size()) {}

  std::size_t size() const { return hosts_.size(); }

  std::string setup_frame(std::size_t k) const {
    RelaySetup setup{secret_, k == 0, options_.bind, options_.low, options_.high};
    return encode_frame(FrameType::relay_setup, encode(setup));
  }

  // ---- from the sink ----
  void listening(std::size_t k, RelayPeer peer) {
    update([&] {
      hosts_[k].peer = std::move(peer);
      hosts_[k].listening = true;
    });
  }
  void linked(std::size_t k, const RelayStatus& status) {
    update([&] {
      hosts_[k].linked = true;
      if (!status.error.empty()) call_off(k, status.error);
      go_ = !off_ && std::all_of(hosts_.begin(), hosts_.end(), [](auto& h) { return h.linked; });
    });
  }
  // Host k will say no more (its command ended, its host failed, or it said something malformed).
  void ended(std::size_t k, const std::string& why) {
    update([&] {
      if (!go_) call_off(k, why.empty() ? "ended before the relay linked up" : why);
    });
  }

  // ---- from the inputs ----
  enum class Step { wait, ready, off };
  // relay_next for host k, once the next host has said where it listens.
  Step next_peer(std::size_t k, RelayPeer& peer) {
    std::lock_guard lock(mutex_);
    if (off_) return Step::off;
    if (k + 1 == hosts_.size()) return Step::ready;  // the last: none
    if (!hosts_[k + 1].listening) return Step::wait;
    peer = hosts_[k + 1].peer;
    return Step::ready;
  }
  Step go() {
    std::lock_guard lock(mutex_);
    return off_ ? Step::off : go_ ? Step::ready : Step::wait;
  }
  // `wake` once, at the next change of what next_peer() and go() say.
  void on_change(std::size_t k, std::function<void()> wake) {
    std::unique_lock lock(mutex_);
    hosts_[k].wake = std::move(wake);
  }
  // The head's stream, read from the moment the chain is linked (a chain called off reads
  // nothing of it, so the caller can still send it from here).
  Result<std::shared_ptr<Broadcast>> head_stream() {
    std::lock_guard lock(mutex_);
    if (!broadcast_) {
      auto started = Broadcast::start(stream_, 1, Broadcast::Options{});
      if (!started) return Error{started.error()};
      broadcast_ = std::move(*started);
    }
    return broadcast_;
  }

  bool called_off(std::string& reason) const {
    std::lock_guard lock(mutex_);
    reason = reason_;
    return off_ && !go_;
  }

 private:
  struct Host {
    RelayPeer peer;
    bool listening = false;
    bool linked = false;
    std::function<void()> wake;
  };

  // Runs `change` under the lock, then calls the wakes it made due, outside it.
  template <typename F>
  void update(F change) {
    std::vector<std::function<void()>> wakes;
    {
      std::lock_guard lock(mutex_);
      change();
      for (auto& h : hosts_)
        if (h.wake) wakes.push_back(std::exchange(h.wake, nullptr));
    }
    for (auto& w : wakes) w();
  }
  void call_off(std::size_t k, const std::string& why) {
    if (off_) return;
    off_ = true;
    reason_ = jobs_[k].label + ": " + why;
  }

  const std::vector<Job>& jobs_;
  const std::string secret_;
  const RelayOptions options_;
  const int stream_;
  mutable std::mutex mutex_;
  std::vector<Host> hosts_;
  bool go_ = false, off_ = false;
  std::string reason_;
  std::shared_ptr<Broadcast> broadcast_;
};

// Host k's stdin: its setup, the next host's address, go, and for the head the stream. The end
// of input instead, as soon as the chain is called off.
class ChainInput final : public InputSource {
 public:
  ChainInput(Chain& chain, std::size_t k) : chain_(chain), k_(k), pending_(chain.setup_frame(k)) {}
  ~ChainInput() override { finish(); }
  ChainInput(const ChainInput&) = delete;
  ChainInput& operator=(const ChainInput&) = delete;

  InputPiece next() override {
    for (;;) {
      if (taken_ < pending_.size())
        return {InputPiece::State::data, std::string_view(pending_).substr(taken_), {}};
      switch (phase_) {
        case Phase::next: {
          RelayPeer peer;
          auto step = chain_.next_peer(k_, peer);
          if (step != Chain::Step::ready) return waiting(step);
          refill(encode_frame(FrameType::relay_next, encode(peer)), Phase::go);
          continue;
        }
        case Phase::go: {
          auto step = chain_.go();
          if (step != Chain::Step::ready) return waiting(step);
          refill(encode_frame(FrameType::relay_go, ""), Phase::stream);
          continue;
        }
        case Phase::stream: {
          if (k_ != 0) return {InputPiece::State::end, {}, {}};
          if (!stream_) {
            auto started = chain_.head_stream();
            if (!started) return {InputPiece::State::failed, {}, started.error()};
            broadcast_ = std::move(*started);
            stream_.emplace(*broadcast_, 0);
            if (stall_) stream_->on_stall(std::move(stall_));
          }
          return stream_->next();
        }
      }
    }
  }
  void consume(std::size_t n) override {
    if (taken_ < pending_.size())
      taken_ += n;
    else if (stream_)
      stream_->consume(n);
  }
  void on_ready(std::function<void()> wake) override {
    if (stream_)
      stream_->on_ready(std::move(wake));
    else
      chain_.on_change(k_, std::move(wake));
  }
  void on_stall(std::function<void(const std::string&)> fail) override {
    if (stream_)
      stream_->on_stall(std::move(fail));
    else
      stall_ = std::move(fail);
  }
  void finish() override {
    if (stream_) stream_->finish();
  }

 private:
  enum class Phase { next, go, stream };
  InputPiece waiting(Chain::Step step) {
    return step == Chain::Step::off ? InputPiece{InputPiece::State::end, {}, {}}
                                    : InputPiece{InputPiece::State::wait, {}, {}};
  }
  void refill(std::string bytes, Phase then) {
    pending_ = std::move(bytes);
    taken_ = 0;
    phase_ = then;
  }

  Chain& chain_;
  std::size_t k_;
  std::string pending_;  // bytes of the frame being sent
  std::size_t taken_ = 0;
  Phase phase_ = Phase::next;
  std::shared_ptr<Broadcast> broadcast_;
  std::optional<BroadcastInput> stream_;
  std::function<void(const std::string&)> stall_;
};

// Each host's replies: relay frames go to the chain as they come, the receive's frames are kept
// for the caller (as ReplySink keeps them).
class ChainSink final : public OutputSink {
 public:
  ChainSink(Chain& chain, std::vector<RelayedHost>& hosts)
      : chain_(chain), hosts_(hosts), decoders_(hosts.size()) {}

  void output(std::size_t k, Stream stream, std::string_view bytes) override {
    RelayedHost& host = hosts_[k];
    if (stream == Stream::err) {
      host.reply.err.append(bytes);
      if (host.reply.err.size() > ReplySink::kMaxStderr)
        host.reply.err.erase(0, host.reply.err.size() - ReplySink::kMaxStderr);
      return;
    }
    if (!host.error.empty()) return;
    decoders_[k].feed(bytes);
    for (;;) {
      auto frame = decoders_[k].next();
      if (!frame) return malformed(k, frame.error());
      if (!*frame) return;
      if (auto taken = take(k, **frame); !taken) return malformed(k, taken.error());
    }
  }
  void finished(std::size_t k, const HostResult& result) override {
    hosts_[k].reply.result = result;
    chain_.ended(k, "");
  }

 private:
  Result<void> take(std::size_t k, const Frame& frame) {
    switch (frame.type) {
      case FrameType::relay_listening:
        chain_.listening(k, TRY(decode_relay_peer(frame.payload)));
        return {};
      case FrameType::relay_linked:
        chain_.linked(k, TRY(decode_relay_status(frame.payload)));
        return {};
      case FrameType::relay_end:
        hosts_[k].forward_error = TRY(decode_relay_status(frame.payload)).error;
        return {};
      default: {
        std::string& out = hosts_[k].reply.out;
        if (out.size() + frame.payload.size() > ReplySink::kMaxReply) {
          hosts_[k].reply.overflow = true;
          return {};
        }
        out += encode_frame(frame.type, frame.payload);
        return {};
      }
    }
  }
  void malformed(std::size_t k, const std::string& why) {
    hosts_[k].error = "malformed reply from the agent: " + why;
    chain_.ended(k, hosts_[k].error);
  }

  Chain& chain_;
  std::vector<RelayedHost>& hosts_;
  std::vector<FrameDecoder> decoders_;
};

}  // namespace

RelayRun relay_chain(Transport& transport, std::vector<Job> jobs, int stream,
                     const RelayOptions& options) {
  for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k].index = k;  // the sink's and chain's k
  RelayRun run;
  run.hosts.resize(jobs.size());
  auto secret = make_relay_secret();
  if (!secret) {
    run.called_off = true;
    run.reason = secret.error();
    return run;
  }
  Chain chain(jobs, std::move(*secret), options, stream);
  ChainSink sink(chain, run.hosts);
  execute_tasks(transport, jobs, sink, {jobs.size(), 0},
                [&chain](Session& session, const Job& job, JobIo& io,
                         StopSignal& stop) -> boost::asio::awaitable<HostResult> {
                  ChainInput input(chain, job.index);
                  ExecRequest request{job.command, job.env, job.command_timeout, &input};
                  co_return co_await session.exec(request, io, stop);
                });
  run.called_off = chain.called_off(run.reason);
  return run;
}

}  // namespace pdx
