#pragma once
// The newest bytes of a relay's stream, kept for a reader that joins late (a bridge around a host
// that died, agent/relay_bridge.h) once every reader has taken them (agent/relay_queue.h): a
// ring of `capacity` bytes, where stream offset o lies at o % capacity. The ring is a file the
// kernel keeps in memory (memfd; else an unlinked file in $TMPDIR or /tmp; else this process's
// own memory): its pages are the kernel's page cache, filled by write(2), so a relaying host
// does not touch fresh pages of its own for each MiB it forwards (on a VM those faults cost
// more than the rest of forwarding), and the queue's buffers are reused while they are warm.
//
// One writer and any readers, from any threads, the caller keeping them apart: a read of a range
// the writer is rewriting gets either. A failed write (the file's memory limit) loses what was
// kept before it: kept_from() says the oldest offset still whole.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/fd.h"

namespace pdx {

class HistoryRing {
 public:
  explicit HistoryRing(std::uint64_t capacity);
  HistoryRing(const HistoryRing&) = delete;
  HistoryRing& operator=(const HistoryRing&) = delete;

  /// Keeps `bytes` (at most capacity()) as the stream's bytes from `offset` on.
  void write(std::uint64_t offset, std::string_view bytes);
  /// The `n` bytes from `offset` (at most capacity()); "" when they cannot be read back.
  std::string read(std::uint64_t offset, std::size_t n) const;
  std::uint64_t capacity() const { return capacity_; }
  /// The oldest offset whose bytes are whole since the last failed write (0 before any).
  std::uint64_t kept_from() const { return kept_from_.load(); }

 private:
  const std::uint64_t capacity_;
  Fd fd_;               // the ring's file, or none: memory_
  std::string memory_;  // capacity_ bytes, made at the first write
  std::atomic<std::uint64_t> kept_from_{0};
};

}  // namespace pdx
