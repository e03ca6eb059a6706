#pragma once
// The chunks of a relay on their way through one host (agent/agent_relay.cpp), or through
// pdx to the head (distribute/relay/relay_head.h): one thread takes them from upstream and puts
// them here; each reader (the link to the next host, this host's receive, the head's stdin) takes
// every chunk, in order, so a host forwards while it writes and receives while it forwards. A
// chunk is let go once every reader has taken it; its buffer is then handed back by spare(), for
// the next chunk to be read into while it is warm. The newest `history` bytes of the stream
// (relay_bridge.h's relay_history) are also kept, in a HistoryRing written as each chunk is put:
// a reader added late (a bridge to a host beyond one that died, agent/relay_bridge.h) starts at
// the stream offset that host holds, from that history. At most kMaxQueued bytes wait for the
// slowest reader, so memory is bounded whatever the data's size (kMaxQueued + a chunk, the spare
// buffers, and the ring's `history` in the kernel's page cache), and a reader runs ahead of the
// slowest by that much at most. A reader that gives up is no longer waited for. Thread-safe;
// chunks are put by one thread at a time.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/history_ring.h"

namespace pdx {

class RelayQueue {
 public:
  static constexpr std::size_t kMaxQueued = 4 * 1024 * 1024;
  static constexpr std::uint64_t kHistory = 24 * 1024 * 1024;
  /// The largest piece a put chunk is kept in (a larger one is cut).
  static constexpr std::size_t kMaxChunk = 1024 * 1024;
  using Chunk = std::shared_ptr<const std::string>;
  enum class End { whole, broken };  // the stream came whole, or upstream broke off

  /// `history`: 0 on a host that has no one to bridge to (no host after the next).
  explicit RelayQueue(std::size_t readers, std::uint64_t history = kHistory);

  /// Adds a chunk (not empty): waits while kMaxQueued bytes wait for the slowest reader and its
  /// own would go over (one chunk is always let in). False when no reader is left.
  bool put(std::string chunk);
  /// put(), waiting at most `stall` for room: `stalled` when it took longer, and `chunk` is
  /// left as it was (it is moved from only when put in).
  enum class Put { in, nobody, stalled };
  Put put(std::string& chunk, std::chrono::milliseconds stall);
  /// No more chunks, and how the stream ended.
  void end(End how);
  /// Reader r's next chunk; nullptr at the end, with `how` it ended, or when none came for
  /// `wait` (`how` empty); nullptr and `broken` once it has left (leave(), from another thread).
  Chunk take(std::size_t r, std::optional<End>& how,
             std::chrono::milliseconds wait = std::chrono::hours(24));
  /// `wake` once, as soon as reader r has a chunk to take or the end (at once if it has now):
  /// for a reader that takes without waiting (take() with a wait of 0). Called outside the lock.
  void on_ready(std::size_t r, std::function<void()> wake);
  /// A new reader, from stream offset `offset` on; nullopt when that is no longer kept (or was
  /// never put).
  std::optional<std::size_t> join(std::uint64_t offset);
  /// Reader r takes no more.
  void leave(std::size_t r);
  /// A buffer to read the next chunk into: one of a chunk let go (its size kept, so that filling
  /// it again zeroes nothing), else an empty one.
  std::string spare();

 private:
  struct Entry {
    Chunk chunk;
    std::uint64_t offset;  // of its first byte in the stream
  };
  struct Reader {
    std::uint64_t at = 0;  // the stream offset of its next byte
    bool gone = false;
    std::function<void()> wake;  // on_ready's
  };
  class Spares;  // the buffers of chunks let go, shared with the chunks' deleters
  bool put_piece(std::string& chunk, std::chrono::milliseconds stall);
  std::uint64_t slowest() const;  // under the lock: the least `at` of the readers still here
  std::uint64_t oldest() const;   // under the lock: the first offset a reader can start at
  void let_go();                  // under the lock
  std::vector<std::function<void()>> wakes();  // under the lock: those of readers with a chunk

  std::mutex mutex_;
  std::condition_variable room_, ready_;
  std::deque<Entry> chunks_;
  std::uint64_t end_offset_ = 0;  // bytes put
  const std::uint64_t history_;
  std::unique_ptr<HistoryRing> ring_;  // history_ and a piece being put; none without a history
  std::shared_ptr<Spares> spares_;
  std::vector<Reader> readers_;
  std::optional<End> end_;
};

}  // namespace pdx
