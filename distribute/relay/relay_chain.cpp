#include "distribute/relay/relay_chain.h"

#include <algorithm>
#include <system_error>
#include <utility>

#include "distribute/direct_link.h"

namespace pdx {

std::pair<std::size_t, std::size_t> relay_children(std::size_t k, std::size_t n,
                                                   std::size_t fanout) {
  std::size_t first = std::min(n, fanout * k + 1);
  return {first, std::min(n, first + fanout)};
}

Chain::Chain(std::vector<std::string> labels, std::string secret, RelayOptions options, int stream,
             Broadcast::Options head)
    : labels_(std::move(labels)),
      secret_(std::move(secret)),
      options_(std::move(options)),
      stream_(stream),
      head_(std::move(head)),
      hosts_(labels_.size()) {}

Chain::~Chain() {
  if (connecting_.joinable()) connecting_.join();
}

void Chain::head_over_link(bool must) {
  std::lock_guard lock(mutex_);
  head_link_ = HeadLink::asked;
  head_must_link_ = must;
}

std::string Chain::setup_frame(std::size_t k) const {
  std::lock_guard lock(mutex_);
  bool linked_head = k == 0 && head_link_ != HeadLink::none;  // listens, pdx its upstream
  RelaySetup setup{secret_,      k == 0 && !linked_head, options_.bind,
                   options_.low, options_.high,          linked_head};
  return encode_frame(FrameType::relay_setup, encode(setup));
}

std::string Chain::go_frame(std::size_t k) const {
  std::lock_guard lock(mutex_);
  return encode_frame(FrameType::relay_go,
                      encode(RelayGo{k == 0 && head_link_ == HeadLink::failed}));
}

bool Chain::head_linked() const {
  std::lock_guard lock(mutex_);
  return head_link_ == HeadLink::linked;
}

std::string Chain::head_not_linked() const {
  std::lock_guard lock(mutex_);
  return head_link_ == HeadLink::failed ? head_why_ : "";
}

void Chain::listening(std::size_t k, RelayPeer peer) {
  update([&] {
    hosts_[k].peer = peer;
    hosts_[k].listening = true;
    if (k != 0 || head_link_ != HeadLink::asked) return;
    head_link_ = HeadLink::connecting;
    try {
      connecting_ = std::thread([this, peer] { link_head(peer); });
    } catch (const std::system_error& e) {
      head_link_ = HeadLink::failed;
      head_why_ = std::string("cannot start a thread: ") + e.what();
      if (head_must_link_) call_off(0, "no direct data link: " + head_why_);
    }
  });
}

// pdx's link to the head, made while the hosts link up: go waits for it.
void Chain::link_head(RelayPeer peer) {
  auto link = direct_connect(peer, secret_);
  update([&] {
    if (link) {
      to_head_.emplace(std::move(*link));
      head_link_ = HeadLink::linked;
    } else {
      head_link_ = HeadLink::failed;
      head_why_ = link.error();
      if (head_must_link_) call_off(0, "no direct data link: " + head_why_);
    }
    settle_go();
  });
}

void Chain::linked(std::size_t k, const RelayStatus& status) {
  update([&] {
    hosts_[k].linked = true;
    if (!status.error.empty()) call_off(k, status.error);
    settle_go();
  });
}

void Chain::settle_go() {
  bool head_settled = head_link_ != HeadLink::asked && head_link_ != HeadLink::connecting;
  go_ = !off_ && head_settled &&
        std::all_of(hosts_.begin(), hosts_.end(), [](auto& h) { return h.linked; });
}

void Chain::ended(std::size_t k, const std::string& why, bool gone) {
  update([&] {
    if (!go_) call_off(k, why.empty() ? "ended before the relay linked up" : why);
    if (k == 0 && feed_) feed_->head_ended(gone && !hosts_[0].passed_on);
  });
}

Chain::Step Chain::next_peers(std::size_t k, RelayNext& next) {
  std::lock_guard lock(mutex_);
  if (off_) return Step::off;
  bool all_listening = true;
  next = below(k, all_listening);
  return all_listening ? Step::ready : Step::wait;
}

RelayNext Chain::below(std::size_t k, bool& all_listening) const {
  std::size_t n = hosts_.size();
  auto levels = [&](auto& self, std::size_t at, std::size_t depth) -> std::vector<RelayBranch> {
    std::vector<RelayBranch> branches;
    if (depth == 0) return branches;
    auto [first, last] = relay_children(at, n, options_.fanout);
    for (std::size_t c = first; c < last; ++c) {
      all_listening = all_listening && hosts_[c].listening;
      branches.push_back(RelayBranch{hosts_[c].peer, self(self, c, depth - 1)});
    }
    return branches;
  };
  return RelayNext{levels(levels, k, relay_depth(options_.fanout))};
}

Chain::Step Chain::go() {
  std::lock_guard lock(mutex_);
  return off_ ? Step::off : go_ ? Step::ready : Step::wait;
}

void Chain::on_change(std::size_t k, std::function<void()> wake) {
  std::unique_lock lock(mutex_);
  hosts_[k].wake = std::move(wake);
}

void Chain::passed_on(std::size_t k) {
  std::lock_guard lock(mutex_);
  hosts_[k].passed_on = true;
}

Result<HeadFeed*> Chain::head_feed() {
  std::lock_guard lock(mutex_);
  if (!feed_) {
    bool all_listening = true;  // they are: the chain is linked
    std::function<void(std::size_t)> consumed;
    if (head_.on_consume) consumed = [tell = head_.on_consume](std::size_t n) { tell(0, n); };
    std::optional<RelayLink> link = std::exchange(to_head_, std::nullopt);
    auto started = HeadFeed::start(stream_, secret_, below(0, all_listening).peers, head_.stall,
                                   std::move(consumed), std::move(link));
    if (!started) return Error{started.error()};
    feed_ = std::move(*started);
  }
  return feed_.get();
}

std::string Chain::head_bridged() {
  HeadFeed* feed;
  {
    std::lock_guard lock(mutex_);
    feed = feed_.get();
  }
  return feed ? feed->bridged() : "";
}

bool Chain::called_off(std::string& reason) const {
  std::lock_guard lock(mutex_);
  reason = reason_;
  return off_ && !go_;
}

template <typename F>
void Chain::update(F change) {
  std::vector<std::function<void()>> wakes;
  {
    std::lock_guard lock(mutex_);
    change();
    for (auto& h : hosts_)
      if (h.wake) wakes.push_back(std::exchange(h.wake, nullptr));
  }
  for (auto& w : wakes) w();
}

void Chain::call_off(std::size_t k, const std::string& why) {
  if (off_) return;
  off_ = true;
  reason_ = labels_[k] + ": " + why;
}

InputPiece ChainInput::next() {
  for (;;) {
    if (taken_ < pending_.size())
      return {InputPiece::State::data, std::string_view(pending_).substr(taken_), {}};
    switch (phase_) {
      case Phase::next: {
        RelayNext next;
        auto step = chain_.next_peers(k_, next);
        if (step != Chain::Step::ready) return waiting(step);
        refill(encode_frame(FrameType::relay_next, encode(next)), Phase::go);
        continue;
      }
      case Phase::go: {
        auto step = chain_.go();
        if (step != Chain::Step::ready) return waiting(step);
        refill(chain_.go_frame(k_), Phase::stream);
        continue;
      }
      case Phase::stream: {
        if (k_ != 0) return {InputPiece::State::end, {}, {}};
        if (!feed_) {
          auto started = chain_.head_feed();
          if (!started) return {InputPiece::State::failed, {}, started.error()};
          feed_ = *started;
          if (stall_) feed_->on_stall(std::move(stall_));
        }
        if (chain_.head_linked()) return {InputPiece::State::end, {}, {}};  // over its link
        return feed_->next();
      }
    }
  }
}

void ChainInput::consume(std::size_t n) {
  if (taken_ < pending_.size())
    taken_ += n;
  else if (feed_)
    feed_->consume(n);
}

void ChainInput::on_ready(std::function<void()> wake) {
  if (feed_)
    feed_->on_ready(std::move(wake));
  else
    chain_.on_change(k_, std::move(wake));
}

void ChainInput::on_stall(std::function<void(const std::string&)> fail) {
  if (feed_)
    feed_->on_stall(std::move(fail));
  else
    stall_ = std::move(fail);
}

InputPiece ChainInput::waiting(Chain::Step step) {
  return step == Chain::Step::off ? InputPiece{InputPiece::State::end, {}, {}}
                                  : InputPiece{InputPiece::State::wait, {}, {}};
}

void ChainInput::refill(std::string bytes, Phase then) {
  pending_ = std::move(bytes);
  taken_ = 0;
  phase_ = then;
}

void ChainReply::output(std::size_t, Stream stream, std::string_view bytes) {
  if (stream == Stream::err) return keep_stderr_tail(host_.reply.err, bytes);
  if (!host_.error.empty()) return;
  auto taken = take_frames(decoder_, bytes, [this](const Frame& frame) { return take(frame); });
  if (!taken) malformed(taken.error());
}

Result<void> ChainReply::take(const Frame& frame) {
  switch (frame.type) {
    case FrameType::relay_listening:
      chain_.listening(k_, TRY(decode_relay_peer(frame.payload)));
      return {};
    case FrameType::relay_linked:
      chain_.linked(k_, TRY(decode_relay_status(frame.payload)));
      return {};
    case FrameType::relay_end:
      host_.forward_error = TRY(decode_relay_status(frame.payload)).error;
      chain_.passed_on(k_);
      return {};
    default: {
      std::string& out = host_.reply.out;
      if (out.size() + frame.payload.size() > ReplySink::kMaxReply) {
        host_.reply.overflow = true;
        return {};
      }
      out += encode_frame(frame.type, frame.payload);
      return {};
    }
  }
}

void ChainReply::malformed(const std::string& why) {
  host_.error = "malformed reply from the agent: " + why;
  chain_.ended(k_, host_.error);
}

}  // namespace pdx
