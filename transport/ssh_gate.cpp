#include "transport/ssh_gate.h"

#include <vector>

namespace pdx {

bool SetupGate::enter(std::function<void()> admit) {
  std::lock_guard lock(mutex_);
  if (waiting_.empty() && free_ > 0 && descriptors_ >= kSettingUp) {
    --free_;
    descriptors_ -= kSettingUp;
    return true;
  }
  waiting_.push_back(std::move(admit));
  return false;
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

// Hands what came back to those waiting, first come first served.
void SetupGate::release(std::size_t slots, std::size_t descriptors) {
  std::vector<std::function<void()>> admitted;
  {
    std::lock_guard lock(mutex_);
    free_ += slots;
    descriptors_ += descriptors;
    while (!waiting_.empty() && free_ > 0 && descriptors_ >= kSettingUp) {
      --free_;
      descriptors_ -= kSettingUp;
      admitted.push_back(std::move(waiting_.front()));
      waiting_.pop_front();
    }
  }
  for (auto& admit : admitted) admit();
}

}  // namespace pdx
