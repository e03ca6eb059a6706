#include "core/io_threads.h"

#include <algorithm>
#include <utility>

namespace pdx {

namespace {

clockid_t cpu_clock(pthread_t thread) {
  clockid_t clock{};
  return pthread_getcpuclockid(thread, &clock) == 0 ? clock : CLOCK_THREAD_CPUTIME_ID;
}

}  // namespace

double IoClocks::thread_cpu_seconds(clockid_t clock) {
  timespec used{};
  if (clock == CLOCK_THREAD_CPUTIME_ID || clock_gettime(clock, &used) != 0) return 0;
  return static_cast<double>(used.tv_sec) + static_cast<double>(used.tv_nsec) / 1e9;
}

IoThreads::IoThreads(boost::asio::io_context& ctx, unsigned max, IoClocks clocks)
    : ctx_(ctx), max_(std::max(1u, max)), clocks_(std::move(clocks)) {}

void IoThreads::run() {
  {
    std::lock_guard lock(mutex_);
    thread_clocks_.push_back(cpu_clock(pthread_self()));
    last_cpu_ = cpu_seconds();  // what the thread used before is not the io_context's
    last_tick_ = clocks_.now();
  }
  ctx_.run();
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  for (auto& thread : added_) thread.join();  // no tick() adds to added_ once done_ is set
}

double IoThreads::cpu_seconds() {
  double total = 0;
  for (clockid_t clock : thread_clocks_) total += clocks_.cpu_seconds(clock);
  return total;
}

void IoThreads::tick() {
  std::lock_guard lock(mutex_);
  if (done_ || thread_clocks_.empty() || thread_clocks_.size() >= max_) return;
  auto now = clocks_.now();
  double wall = std::chrono::duration<double>(now - last_tick_).count();
  double cpu = cpu_seconds();
  bool busy = cpu - last_cpu_ > 0.5 * wall * static_cast<double>(thread_clocks_.size());
  last_tick_ = now;
  last_cpu_ = cpu;
  if (!busy) return;
  added_.emplace_back([this] { ctx_.run(); });
  thread_clocks_.push_back(cpu_clock(added_.back().native_handle()));
  last_cpu_ = cpu_seconds();
}

unsigned IoThreads::count() {
  std::lock_guard lock(mutex_);
  return static_cast<unsigned>(thread_clocks_.size());
}

}  // namespace pdx
