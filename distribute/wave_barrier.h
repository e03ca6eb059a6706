#pragma once
// Where the hosts of one wave of a push wait for each other, between listing and receiving
// (distribute/push/push.h): every host's plan is made only once every host has listed (or failed),
// so that hosts needing the same bytes share one stream.
//
// The hosts are coroutines on strands of one io_context (core/executor.h), so waiting never
// blocks a thread: each waiter suspends on a timer of its own strand, and the last party to come
// runs `complete` on its own thread, then posts each waiter's wake-up to that waiter's strand.
//
//   party k:  arrive(k) -> suspended ... -> true   (complete has run)
//                                       \-> false  (its StopSignal fired first: Ctrl-C)
//             leave(k)                               (it will not arrive: failed or ended)
//   the last arrive() or leave() of the `parties`:  complete(), then every waiter resumes
//
// Thread-safety: arrive() and leave() may be called from any thread, each party from one strand
// at a time. `complete` must not throw; it runs before any waiter resumes, exactly once.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "transport/transport.h"

namespace pdx {

class WaveBarrier {
 public:
  WaveBarrier(std::size_t parties, std::function<void()> complete);
  WaveBarrier(const WaveBarrier&) = delete;
  WaveBarrier& operator=(const WaveBarrier&) = delete;

  /// Party `k` arrives and waits for the others: true once `complete` has run, false when
  /// `stop` fired before (the party still counts as arrived). Once per party.
  boost::asio::awaitable<bool> arrive(std::size_t party, StopSignal& stop);
  /// Party `k` will not arrive: nobody waits for it. No-op once it has arrived or left.
  void leave(std::size_t party);

 private:
  enum class State : char { expected, arrived, left };
  // Marks `party`; true if it was the last one expected.
  bool count(std::size_t party, State state, std::function<void()> wake);
  void finish();  // runs complete_, then wakes the waiters

  std::function<void()> complete_;
  std::mutex mutex_;
  std::vector<State> states_;
  std::size_t expected_;
  bool completed_ = false;
  std::vector<std::function<void()>> wakes_;
};

}  // namespace pdx
