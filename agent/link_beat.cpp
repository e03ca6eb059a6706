#include "agent/link_beat.h"

#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "base/quiet_threads.h"

namespace pdx {

LinkBeat::LinkBeat(std::chrono::steady_clock::duration every, std::function<void()> beat) {
  QuietThreads quiet;
  thread_ = std::jthread([every, beat = std::move(beat)](std::stop_token stop) {
    std::mutex mutex;
    std::condition_variable_any tick;  // woken by nothing but the stop
    std::unique_lock lock(mutex);
    for (;;) {
      tick.wait_for(lock, stop, every, [] { return false; });
      if (stop.stop_requested()) return;
      beat();
    }
  });
}

}  // namespace pdx
