#include "transport/ssh_gate.h"

#include <algorithm>

namespace pdx {

SetupGate::SetupGate(std::size_t limit, std::size_t descriptors,
                     std::function<Clock::time_point()> now)
    : now_(std::move(now)),
      limit_(std::max<std::size_t>(limit, 1)),
      descriptors_(descriptors),
      window_(static_cast<double>(std::min(limit_, kFirstWindow))) {}

bool SetupGate::enter(std::function<void()> admit) {
  std::lock_guard lock(mutex_);
  if (waiting_.empty() && in_flight_ < slots() && descriptors_ >= kSettingUp) {
    ++in_flight_;
    descriptors_ -= kSettingUp;
    return true;
  }
  waiting_.push_back(std::move(admit));
  return false;
}

void SetupGate::paced(Clock::time_point started, Clock::duration timeout) {
  Admitted admitted;
  {
    std::lock_guard lock(mutex_);
    auto now = now_();
    auto took = now - started;
    if (timeout <= Clock::duration::zero()) timeout = kDefaultTimeout;
    fastest_ = std::min(fastest_, took);
    auto bar = std::clamp(fastest_ * 3 / 2, timeout / 3, timeout / 2);
    // Setups in flight together vary twofold: a slow one shrinks the window only when their
    // mean is slow too (smoothed as TCP smooths round trips), unless it took half its timeout.
    double ratio = std::chrono::duration<double>(took) / bar;
    smoothed_ = smoothed_ < 0 ? ratio : smoothed_ + (ratio - smoothed_) / 8;
    if ((ratio > 1 && smoothed_ > 1) || took > timeout / 2) {
      if (started >= shrunk_) {
        window_ = std::max(1.0, window_ * 0.7);
        shrunk_ = now;
      }
    } else {
      // One more per setup far under the bar (doubling per window), less and less nearer it.
      window_ =
          std::min(static_cast<double>(limit_), window_ + std::clamp(2 * (1 - ratio), 0.0, 1.0));
      admitted = admit_waiting();
    }
  }
  for (auto& admit : admitted) admit();
}

void SetupGate::set_up() {
  release(1, kSettingUp - kSetUp);
}

void SetupGate::leave(bool set_up) {
  if (set_up)
    release(0, kSetUp);
  else
    release(1, kSettingUp);
}

std::size_t SetupGate::window() const {
  std::lock_guard lock(mutex_);
  return slots();
}

std::size_t SetupGate::slots() const {
  return std::max<std::size_t>(1, static_cast<std::size_t>(window_));
}

// Hands what came back to those waiting, first come first served.
SetupGate::Admitted SetupGate::admit_waiting() {
  Admitted admitted;
  while (!waiting_.empty() && in_flight_ < slots() && descriptors_ >= kSettingUp) {
    ++in_flight_;
    descriptors_ -= kSettingUp;
    admitted.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
  }
  return admitted;
}

void SetupGate::release(std::size_t slots, std::size_t descriptors) {
  Admitted admitted;
  {
    std::lock_guard lock(mutex_);
    in_flight_ -= slots;
    descriptors_ += descriptors;
    admitted = admit_waiting();
  }
  for (auto& admit : admitted) admit();
}

}  // namespace pdx
