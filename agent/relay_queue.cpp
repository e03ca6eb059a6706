#include "agent/relay_queue.h"

#include <algorithm>
#include <utility>

namespace pdx {

namespace {

constexpr std::size_t kSpares = 8;                // buffers kept for reuse, at most
constexpr std::size_t kSpareAtLeast = 64 * 1024;  // and only those this large

}  // namespace

class RelayQueue::Spares {
 public:
  void give(std::string&& buffer) {
    std::lock_guard lock(mutex_);
    if (buffer.capacity() >= kSpareAtLeast && buffers_.size() < kSpares)
      buffers_.push_back(std::move(buffer));
  }
  std::string take() {
    std::lock_guard lock(mutex_);
    if (buffers_.empty()) return {};
    std::string buffer = std::move(buffers_.back());
    buffers_.pop_back();
    return buffer;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> buffers_;
};

RelayQueue::RelayQueue(std::size_t readers, std::uint64_t history)
    : history_(history),
      ring_(history ? std::make_unique<HistoryRing>(history + kMaxChunk) : nullptr),
      spares_(std::make_shared<Spares>()),
      readers_(readers) {}

std::string RelayQueue::spare() {
  return spares_->take();
}

bool RelayQueue::put(std::string chunk) {
  return put(chunk, std::chrono::hours(24 * 365)) == Put::in;
}

RelayQueue::Put RelayQueue::put(std::string& chunk, std::chrono::milliseconds stall) {
  // Kept in the ring before it is in the queue (only this thread moves end_offset_): a piece
  // up to kMaxChunk overwrites none of the history's bytes, which readers read under the lock;
  // a larger one is kept under the lock.
  bool large = chunk.size() > kMaxChunk;
  if (ring_ && !large) ring_->write(end_offset_, chunk);
  std::vector<std::function<void()>> ready;
  {
    std::unique_lock lock(mutex_);
    auto left = [&] {
      return std::any_of(readers_.begin(), readers_.end(), [](const Reader& r) { return !r.gone; });
    };
    bool room = room_.wait_for(lock, stall, [&] {
      std::uint64_t waiting = end_offset_ - slowest();
      return !left() || waiting == 0 || waiting + chunk.size() <= kMaxQueued;
    });
    if (!left()) return Put::nobody;
    if (!room) return Put::stalled;
    if (ring_ && large) {  // its last bytes, as many as the ring holds
      std::size_t skip =
          chunk.size() - std::size_t(std::min<std::uint64_t>(chunk.size(), ring_->capacity()));
      ring_->write(end_offset_ + skip, std::string_view(chunk).substr(skip));
    }
    std::uint64_t offset = end_offset_;
    end_offset_ += chunk.size();
    // Its buffer goes back to the spares once every reader has let go of it.
    auto spares = spares_;
    Chunk held(new std::string(std::move(chunk)), [spares](const std::string* bytes) {
      spares->give(std::move(*const_cast<std::string*>(bytes)));
      delete bytes;
    });
    chunks_.push_back(Entry{std::move(held), offset});
    let_go();
    ready_.notify_all();
    ready = wakes();
  }
  for (auto& wake : ready) wake();
  return Put::in;
}

void RelayQueue::end(End how) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard lock(mutex_);
    end_ = how;
    ready_.notify_all();
    ready = wakes();
  }
  for (auto& wake : ready) wake();
}

void RelayQueue::on_ready(std::size_t r, std::function<void()> wake) {
  {
    std::lock_guard lock(mutex_);
    Reader& reader = readers_[r];
    if (reader.at == end_offset_ && !end_) return void(reader.wake = std::move(wake));
  }
  wake();
}

std::vector<std::function<void()>> RelayQueue::wakes() {
  std::vector<std::function<void()>> ready;
  for (Reader& r : readers_)
    if (r.wake) ready.push_back(std::exchange(r.wake, nullptr));
  return ready;
}

RelayQueue::Chunk RelayQueue::take(std::size_t r, std::optional<End>& how,
                                   std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  how.reset();
  auto ready = [&] { return readers_[r].gone || readers_[r].at < end_offset_ || end_; };
  if (!ready_.wait_for(lock, wait, ready)) return nullptr;
  Reader& reader = readers_[r];
  if (reader.gone) {  // its chunks may be let go already
    how = End::broken;
    return nullptr;
  }
  if (reader.at == end_offset_) {
    how = *end_;
    return nullptr;
  }
  std::uint64_t first = chunks_.empty() ? end_offset_ : chunks_.front().offset;
  if (reader.at < first) {  // a late reader's, let go from the queue: out of the history
    std::size_t n = std::size_t(std::min<std::uint64_t>(first - reader.at, kMaxChunk));
    std::string bytes = reader.at >= oldest() ? ring_->read(reader.at, n) : std::string();
    if (bytes.empty()) {  // no longer kept: it cannot go on
      reader.gone = true;
      how = End::broken;
      let_go();
      room_.notify_all();
      return nullptr;
    }
    reader.at += n;
    room_.notify_all();
    return std::make_shared<const std::string>(std::move(bytes));
  }
  // The chunk holding `at`: the last one starting at or before it (kept: `at` is not let go).
  auto it = std::upper_bound(chunks_.begin(), chunks_.end(), reader.at,
                             [](std::uint64_t at, const Entry& e) { return at < e.offset; });
  const Entry& entry = *std::prev(it);
  Chunk chunk = entry.chunk;
  if (reader.at > entry.offset)  // a late reader's first: the part it does not hold
    chunk =
        std::make_shared<const std::string>(chunk->substr(std::size_t(reader.at - entry.offset)));
  reader.at = entry.offset + entry.chunk->size();
  let_go();
  room_.notify_all();
  return chunk;
}

std::optional<std::size_t> RelayQueue::join(std::uint64_t offset) {
  std::lock_guard lock(mutex_);
  if (offset < oldest() || offset > end_offset_) return std::nullopt;
  readers_.push_back(Reader{offset, false, nullptr});
  return readers_.size() - 1;
}

void RelayQueue::leave(std::size_t r) {
  std::lock_guard lock(mutex_);
  readers_[r].gone = true;
  let_go();
  room_.notify_all();   // a writer waiting for room may find nobody left, or room
  ready_.notify_all();  // and the reader itself, taking from another thread, that it left
}

std::uint64_t RelayQueue::slowest() const {
  std::uint64_t least = end_offset_;
  for (const Reader& r : readers_)
    if (!r.gone) least = std::min(least, r.at);
  return least;
}

std::uint64_t RelayQueue::oldest() const {
  std::uint64_t first = chunks_.empty() ? end_offset_ : chunks_.front().offset;
  if (!ring_) return first;
  std::uint64_t kept = std::max(end_offset_ - std::min(end_offset_, history_), ring_->kept_from());
  return std::min(first, kept);
}

void RelayQueue::let_go() {
  std::uint64_t taken = slowest();
  while (!chunks_.empty()) {
    if (chunks_.front().offset + chunks_.front().chunk->size() > taken) break;
    chunks_.pop_front();
  }
}

}  // namespace pdx
