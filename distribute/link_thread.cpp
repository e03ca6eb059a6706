#include "distribute/link_thread.h"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <system_error>

#include "agent/agent_protocol.h"
#include "agent/relay_frames.h"
#include "base/quiet_threads.h"
#include "distribute/direct_link.h"

namespace pdx {

namespace asio = boost::asio;

namespace {

// How long a link whose command ended well may take to end by itself (run_linked).
constexpr std::chrono::seconds kLinkGrace{5};

}  // namespace

void LinkThread::listening(RelayPeer peer) {
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

LinkThread::State LinkThread::state(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  if (state_ == State::waiting && wake) wakes_.push_back(std::move(wake));
  return state_;
}

bool LinkThread::abandon() {
  std::vector<std::function<void()>> wakes;
  bool running = false;
  {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    if (link_) link_->cut();
    moved_.notify_all();
    if (!started_ && state_ == State::waiting) {
      state_ = State::failed;
      wakes.swap(wakes_);
    }
    running = started_ && !ended_;
  }
  for (auto& wake : wakes) wake();
  return running;
}

bool LinkThread::running() {
  std::lock_guard lock(mutex_);
  return started_ && !ended_;
}

std::string LinkThread::why() {
  std::lock_guard lock(mutex_);
  return why_;
}

void LinkThread::fail(const std::string& error) {
  std::lock_guard lock(mutex_);
  if (why_.empty()) why_ = error;
  if (link_) link_->cut();
}

void LinkThread::join() {
  if (thread_.joinable()) thread_.join();
}

void LinkThread::run(const RelayPeer& peer) {
  auto link = direct_connect(peer, secret_, flow_);
  std::vector<std::function<void()>> wakes;
  bool linked_up = false;
  {
    std::lock_guard lock(mutex_);
    linked_up = link && !abandoned_;
    if (linked_up) {
      link_.emplace(std::move(*link));
      state_ = State::linked;
    } else {
      state_ = State::failed;
      why_ = link ? "the host's command ended" : link.error();
    }
    wakes.swap(wakes_);
  }
  for (auto& wake : wakes) wake();
  if (linked_up) linked();
  std::lock_guard lock(mutex_);
  ended_ = true;
  if (done_) done_();  // only posts
}

InputPiece LinkInput::next() {
  if (taken_ < pending_.size())
    return {InputPiece::State::data, std::string_view(pending_).substr(taken_), {}};
  if (went_) return {InputPiece::State::end, {}, {}};
  switch (link_.state()) {
    case LinkThread::State::waiting:
      return {InputPiece::State::wait, {}, {}};
    case LinkThread::State::failed:
      return {InputPiece::State::end, {}, {}};
    case LinkThread::State::linked:
      break;
  }
  went_ = true;
  pending_ = encode_frame(FrameType::relay_go, "");
  taken_ = 0;
  return next();
}

void LinkInput::on_ready(std::function<void()> wake) {
  if (link_.state(wake) != LinkThread::State::waiting) wake();
}

asio::awaitable<HostResult> run_linked(Session& session, const Job& job, const std::string& command,
                                       LinkThread& link, InputSource& input, JobIo& reply,
                                       StopSignal& stop, HeldAgent* held) {
  auto ex = co_await asio::this_coro::executor;
  // Never expires: cancelled from the strand once the link's thread has ended.
  auto done = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
  {
    std::lock_guard lock(link.mutex_);  // before any thread starts: listening() comes in exec
    link.done_ = [weak = std::weak_ptr(done), ex] {
      asio::post(ex, [weak] {
        if (auto timer = weak.lock()) timer->cancel();
      });
    };
  }
  ExecRequest request{command, job.env, job.command_timeout, &input};
  HostResult result = co_await run_relay_mode(session, request, reply, held, stop);
  // The command's end over ssh can come before the link's last record (the host's "passed on")
  // has crossed the data path: a command that ended well leaves the thread a moment to read it
  // and end by itself (the host's end of the link is closed) before the link is cut.
  if (result.failure == Failure::none && !stop.stopped() && link.running()) {
    boost::system::error_code ignored;
    done->expires_after(kLinkGrace);  // a thread ending now posts its wake-up after this wait
    co_await done->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    done->expires_at(asio::steady_timer::time_point::max());
  }
  // A thread ending now posts its wake-up after this wait starts: the strand is held until then.
  while (link.abandon()) {
    boost::system::error_code ignored;
    co_await done->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  co_return result;
}

}  // namespace pdx
