#pragma once
// Output held until it can be printed (-b, --json): in memory while it is small and the run's
// memory budget allows, the rest in one unlinked temporary file the hosts of a run share, so
// memory stays bounded however much the hosts print.
//
//   SpillFile   one per sink: an unlinked file in $TMPDIR (else /tmp), made on first use and
//               gone when pdx exits; appended to from any thread (each append reserves its own
//               range); a dropped output's range is given back to the file system (a hole)
//   HeldOutput  one per host and stream: bytes in memory up to kChunk while the SpillFile's
//               budget has room, written to the file as one range when that runs out
//
// Errors are errno values (0: none), for OutputError; SpillFile::name() says what failed.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/fd.h"

namespace pdx {

/// What a sink's held outputs keep in memory in all, by default.
constexpr std::size_t kHeldMemory = 4 << 20;

class SpillFile {
 public:
  /// `memory_budget`: the bytes all HeldOutputs on this file may keep in memory together.
  explicit SpillFile(std::size_t memory_budget = kHeldMemory);
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends `a` then `b` as one range; `offset` is where it starts.
  int append(std::string_view a, std::string_view b, std::uint64_t& offset);
  /// Reads exactly into.size() bytes at `offset`.
  int read(std::uint64_t offset, char* into, std::size_t size) const;
  /// The range is no longer needed: its disk space is freed (best effort).
  void release(std::uint64_t offset, std::uint64_t length);
  /// "a temporary file in /tmp"
  std::string name() const;

  /// Takes n bytes of the memory budget; false (taking nothing) if they are not left.
  bool take_memory(std::size_t n);
  void give_memory(std::size_t n);

 private:
  int open_once();

  std::string dir_;
  std::atomic<std::size_t> memory_left_;
  std::mutex open_mutex_;
  Fd fd_;
  int open_error_ = 0;
  std::atomic<std::uint64_t> end_{0};
};

class HeldOutput {
 public:
  /// What may be held in memory per output, and the pieces read back are at most this long.
  static constexpr std::size_t kChunk = 64 << 10;

  explicit HeldOutput(SpillFile& file) : file_(&file) {}
  HeldOutput(HeldOutput&& other) noexcept
      : file_(other.file_),
        ranges_(std::exchange(other.ranges_, {})),
        memory_(std::exchange(other.memory_, {})),
        size_(other.size_),
        last_(other.last_) {}
  ~HeldOutput() { release(); }

  int append(std::string_view bytes);
  std::uint64_t size() const { return size_; }
  /// The last byte; size() > 0.
  char back() const { return last_; }
  /// Calls `each` with the held bytes in order, in pieces of at most kChunk, while it returns
  /// true. Returns a read error of the file, or 0.
  int for_each(const std::function<bool(std::string_view)>& each) const;
  /// Drops what is held: memory back to the budget, file ranges back to the file system.
  void release();

 private:
  struct Range {
    std::uint64_t offset, length;
  };
  SpillFile* file_;
  std::vector<Range> ranges_;  // in the file, in order; the memory part comes after them
  std::string memory_;
  std::uint64_t size_ = 0;
  char last_ = 0;
};

}  // namespace pdx
