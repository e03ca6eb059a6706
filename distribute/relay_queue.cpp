#include "distribute/relay_queue.h"

#include <algorithm>

namespace pdx {

bool RelayQueue::put(std::string chunk) {
  std::unique_lock lock(mutex_);
  auto left = [&] { return std::find(gone_.begin(), gone_.end(), false) != gone_.end(); };
  room_.wait(lock,
             [&] { return !left() || chunks_.empty() || queued_ + chunk.size() <= kMaxQueued; });
  if (!left()) return false;
  queued_ += chunk.size();
  chunks_.push_back(std::make_shared<const std::string>(std::move(chunk)));
  ready_.notify_all();
  return true;
}

void RelayQueue::end(End how) {
  std::lock_guard lock(mutex_);
  end_ = how;
  ready_.notify_all();
}

RelayQueue::Chunk RelayQueue::take(std::size_t r, End& how) {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return next_[r] < first_ + chunks_.size() || end_; });
  if (next_[r] == first_ + chunks_.size()) {
    how = *end_;
    return nullptr;
  }
  Chunk chunk = chunks_[next_[r]++ - first_];
  let_go();
  return chunk;
}

void RelayQueue::leave(std::size_t r) {
  std::lock_guard lock(mutex_);
  gone_[r] = true;
  let_go();
  room_.notify_all();  // a writer waiting for room may find nobody left
}

void RelayQueue::let_go() {
  bool freed = false;
  for (;;) {
    if (chunks_.empty()) break;
    bool taken = true;
    for (std::size_t r = 0; r < next_.size(); ++r)
      if (!gone_[r] && next_[r] <= first_) taken = false;
    if (!taken) break;
    queued_ -= chunks_.front()->size();
    chunks_.pop_front();
    ++first_;
    freed = true;
  }
  if (freed) room_.notify_all();
}

}  // namespace pdx
