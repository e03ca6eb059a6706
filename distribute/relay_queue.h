#pragma once
// The chunks of a relay on their way through one host (distribute/agent_relay.cpp): one thread
// takes them from upstream and puts them here; each reader (the link to the next host, this
// host's receive) takes every chunk, in order, on a thread of its own, so a host forwards while
// it writes and receives while it forwards. At most kMaxQueued bytes wait here (a chunk is let
// go once every reader has taken it): memory is bounded whatever the data's size, and a reader
// runs ahead of the slowest by that much at most. A reader that gives up is no longer waited
// for. Thread-safe.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pdx {

class RelayQueue {
 public:
  static constexpr std::size_t kMaxQueued = 4 * 1024 * 1024;
  using Chunk = std::shared_ptr<const std::string>;
  enum class End { whole, broken };  // the stream came whole, or upstream broke off

  explicit RelayQueue(std::size_t readers) : next_(readers, 0), gone_(readers, false) {}

  /// Adds a chunk (not empty): waits while kMaxQueued bytes are queued and its own would go
  /// over (one chunk is always let in). False when no reader is left.
  bool put(std::string chunk);
  /// No more chunks, and how the stream ended.
  void end(End how);
  /// Reader r's next chunk; nullptr at the end, with `how` it ended.
  Chunk take(std::size_t r, End& how);
  /// Reader r takes no more.
  void leave(std::size_t r);

 private:
  void let_go();  // under the lock: the chunks every reader still here has taken

  std::mutex mutex_;
  std::condition_variable room_, ready_;
  std::deque<Chunk> chunks_;
  std::size_t first_ = 0;          // the sequence number of chunks_.front()
  std::size_t queued_ = 0;         // bytes in chunks_
  std::vector<std::size_t> next_;  // by reader: the sequence number of its next chunk
  std::vector<bool> gone_;
  std::optional<End> end_;
};

}  // namespace pdx
