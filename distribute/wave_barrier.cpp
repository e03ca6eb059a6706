#include "distribute/wave_barrier.h"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>

namespace asio = boost::asio;

namespace pdx {

WaveBarrier::WaveBarrier(std::size_t parties, std::function<void()> complete)
    : complete_(std::move(complete)), states_(parties, State::expected), expected_(parties) {}

asio::awaitable<bool> WaveBarrier::arrive(std::size_t party, StopSignal& stop) {
  auto ex = co_await asio::this_coro::executor;
  // Never expires: cancelled (from the strand) to wake this party. Shared with the wake-ups,
  // which may come after the party has gone.
  auto timer = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
  std::function<void()> wake = [weak = std::weak_ptr(timer), ex] {
    asio::post(ex, [weak] {
      if (auto t = weak.lock()) t->cancel();
    });
  };
  if (count(party, State::arrived, wake)) {
    finish();
    co_return true;
  }
  stop.on_stop(wake);
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (completed_) co_return true;
    }
    if (stop.stopped()) co_return false;
    // A wake-up posted before this wait starts runs after it: the strand is held until then.
    boost::system::error_code ignored;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
}

void WaveBarrier::leave(std::size_t party) {
  if (count(party, State::left, {})) finish();
}

bool WaveBarrier::count(std::size_t party, State state, std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  if (wake && !completed_) wakes_.push_back(std::move(wake));
  if (states_[party] != State::expected) return false;
  states_[party] = state;
  return --expected_ == 0;
}

void WaveBarrier::finish() {
  complete_();
  std::vector<std::function<void()>> wakes;
  {
    std::lock_guard lock(mutex_);
    completed_ = true;
    wakes.swap(wakes_);
  }
  for (auto& wake : wakes) wake();
}

}  // namespace pdx
