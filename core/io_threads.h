#pragma once
// The threads an io_context runs on: the calling thread, and more, up to one per core, while the
// ones running are busy. A run of many short sessions that mostly wait on their hosts (`hostname`
// on a thousand hosts) stays on one thread: two threads there only hand work to each other and
// fight over OpenSSL's and malloc's shared state, measured 5-7% more CPU for the same work. A run
// that keeps its threads busy (output streamed at full speed) has a thread per core within a tick.
#include "base/awaitable.h"

#include <pthread.h>
#include <time.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pdx {

/// Where IoThreads reads the time: the wall clock, and the CPU seconds a thread's clock (from
/// pthread_getcpuclockid) says it used. Tests put clocks of their own here.
struct IoClocks {
  std::function<std::chrono::steady_clock::time_point()> now = [] {
    return std::chrono::steady_clock::now();
  };
  std::function<double(clockid_t)> cpu_seconds = thread_cpu_seconds;

  /// What the thread of `clock` used so far; 0 for a clock that cannot be read.
  static double thread_cpu_seconds(clockid_t clock);
};

class IoThreads {
 public:
  /// At most `max` threads (at least one) for `ctx`.
  IoThreads(boost::asio::io_context& ctx, unsigned max, IoClocks clocks = {});

  /// Runs the io_context on the calling thread until it runs out of work, then joins the threads
  /// added meanwhile.
  void run();

  /// From another thread, every few tens of milliseconds: adds a thread if those running were
  /// busy more than half of the time since the last tick.
  void tick();

  /// How many threads have run the io_context so far.
  unsigned count();

 private:
  // CPU seconds the running threads have used; threads that ended are not counted.
  double cpu_seconds();

  boost::asio::io_context& ctx_;
  unsigned max_;
  IoClocks clocks_;
  std::mutex mutex_;  // guards all below: tick() runs on another thread than run()
  std::vector<std::thread> added_;
  std::vector<clockid_t> thread_clocks_;  // the calling thread's, then each added thread's
  bool done_ = false;                     // run() returned from the io_context: add no more
  double last_cpu_ = 0;
  std::chrono::steady_clock::time_point last_tick_;
};

}  // namespace pdx
