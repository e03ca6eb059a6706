#include "transport/transport.h"

namespace pdx {

void StopSignal::on_stop(Callback cb) {
  {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
      callbacks_.push_back(std::move(cb));
      return;
    }
  }
  cb();
}

void StopSignal::stop() {
  std::vector<Callback> callbacks;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    callbacks.swap(callbacks_);
  }
  for (auto& cb : callbacks) cb();
}

void StopSignal::clear() {
  std::vector<Callback> callbacks;
  {
    std::lock_guard lock(mutex_);
    callbacks.swap(callbacks_);
  }  // destroyed outside the lock: a callback's captures may take locks of their own
}

bool StopSignal::stopped() const {
  std::lock_guard lock(mutex_);
  return stopped_;
}

}  // namespace pdx
