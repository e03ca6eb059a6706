#include "transport/ssh_gate.h"

namespace pdx {

bool SetupGate::enter(std::function<void()> admit) {
  std::lock_guard lock(mutex_);
  if (free_ > 0) {
    --free_;
    return true;
  }
  waiting_.push_back(std::move(admit));
  return false;
}

void SetupGate::leave() {
  std::function<void()> next;
  {
    std::lock_guard lock(mutex_);
    if (waiting_.empty()) {
      ++free_;
      return;
    }
    next = std::move(waiting_.front());
    waiting_.pop_front();
  }
  next();  // the slot goes straight to it: free_ is unchanged
}

}  // namespace pdx
