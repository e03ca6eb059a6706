#pragma once
// One input read once and handed to many readers, each at its own pace: pdx's stdin to every
// host's command (and, later, a file pushed to every host).
//
// A thread of its own reads the input in chunks into a window shared by all readers. A chunk is
// dropped once every reader still reading is past it, so memory stays at `window` bytes however
// long the input is; the thread waits while the slowest reader holds the window full. A reader
// that holds it full for `stall` without taking anything is failed (its host is named, the
// others go on), and no longer holds the window.
//
// With more readers than can run at once (more hosts than -f), the last ones start only after
// the first have finished: then every chunk also goes to an unnamed temporary file (the spool),
// the thread never waits, and a reader behind the window reads from the spool. Memory stays
// bounded; the spool takes as much disk as the input.
//
//   reading thread:  read chunk -> [spool] -> window (drop what every reader passed) -> wait?
//   reader i:        next(i) -> bytes | wait (on_ready(i) fires once) | end | failed
//                    on_stall(i): told when it is failed for holding the window
//                    consume(i, n) after the bytes are taken (Options::on_consume is told);
//                    finish(i) when done
//
// Thread-safety: every member may be called from any thread; each reader index is used by one
// caller at a time. The callbacks given to on_ready() are called on the reading thread or in
// next()/finish()'s caller, never under the broadcast's lock: they should only post.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "transport/input_source.h"

namespace pdx {

class Broadcast {
 public:
  struct Options {
    std::size_t chunk = 256 * 1024;          // bytes read at a time
    std::size_t window = 16 * 1024 * 1024;   // bytes kept in memory at most (rounded up to chunks)
    std::chrono::milliseconds stall{60000};  // a reader that holds the window this long fails
    bool spool = false;                      // readers may start late: keep everything on disk
    /// Told of the bytes a reader takes, in consume()'s caller, outside the broadcast's lock: a
    /// progress meter's counter (distribute/progress_meter.h). Cheap and thread-safe, or empty.
    std::function<void(std::size_t reader, std::size_t bytes)> on_consume;
  };

  /// What next() found at a reader's position.
  using Piece = InputPiece;

  /// Reads `input` (a pipe, a file, a socket; not closed by the broadcast unless owned) for
  /// `readers` readers. Error: the spool could not be made.
  static Result<std::unique_ptr<Broadcast>> start(int input, std::size_t readers,
                                                  const Options& options);
  ~Broadcast();  // stops reading (it may still be blocked in read: it is woken)
  Broadcast(const Broadcast&) = delete;
  Broadcast& operator=(const Broadcast&) = delete;

  Piece next(std::size_t reader);
  /// `n` bytes of the last piece were taken.
  void consume(std::size_t reader, std::size_t n);
  /// `wake` is called once, when next(reader) would no longer say wait.
  void on_ready(std::size_t reader, std::function<void()> wake);
  /// `fail` is called once (on the reading thread) if the reader is failed for holding the
  /// window: it should end the reader's host with that error.
  void on_stall(std::size_t reader, std::function<void(const std::string&)> fail);
  /// The reader takes no more (its command ended or its host failed): it no longer holds the
  /// window. Idempotent.
  void finish(std::size_t reader);

 private:
  struct Chunk {
    std::uint64_t offset = 0;
    std::unique_ptr<char[]> data;  // options_.chunk bytes, the first `size` of them read
    std::size_t size = 0;
    std::string_view bytes() const { return {data.get(), size}; }
  };
  struct Reader {
    std::uint64_t position = 0;
    bool finished = false;
    std::string failure;         // set: failed (stalled)
    std::function<void()> wake;  // on_ready's, until called
    std::function<void(const std::string&)> on_stall;
    std::shared_ptr<const Chunk> held;            // keeps the last piece's bytes alive
    std::string spooled;                          // bytes read back from the spool
    std::chrono::steady_clock::time_point since;  // last progress
  };

  Broadcast(int input, std::size_t readers, const Options& options, Fd spool);
  void read_loop();
  bool read_chunk(Chunk& chunk);  // false at the end or on an error (error_ set)
  void drop_passed();             // under mutex_
  bool window_full() const;       // under mutex_
  void fail_stalled(std::vector<std::function<void()>>& calls);  // under mutex_
  std::vector<std::function<void()>> take_wakes();  // under mutex_: those who can go on

  int input_;
  Options options_;
  Fd spool_;
  Fd stop_read_, stop_write_;  // a pipe that wakes the thread blocked in poll()
  mutable std::mutex mutex_;
  std::condition_variable room_;  // the window has room again, or stop
  std::deque<std::shared_ptr<const Chunk>> window_;
  std::vector<Reader> readers_;
  std::uint64_t read_end_ = 0;  // bytes read from the input so far
  bool at_end_ = false;         // input ended, or failed (error_)
  std::string error_;
  bool stopping_ = false;
  std::thread thread_;
};

/// Reader `index` of a broadcast, as one operation's stdin. Finishes the reader when destroyed,
/// so a host that fails before its command starts does not hold the window.
class BroadcastInput final : public InputSource {
 public:
  BroadcastInput(Broadcast& broadcast, std::size_t index) : broadcast_(broadcast), index_(index) {}
  ~BroadcastInput() override { finish(); }
  BroadcastInput(const BroadcastInput&) = delete;
  BroadcastInput& operator=(const BroadcastInput&) = delete;
  InputPiece next() override { return broadcast_.next(index_); }
  void consume(std::size_t n) override { broadcast_.consume(index_, n); }
  void on_ready(std::function<void()> wake) override {
    broadcast_.on_ready(index_, std::move(wake));
  }
  void on_stall(std::function<void(const std::string&)> fail) override {
    broadcast_.on_stall(index_, std::move(fail));
  }
  void finish() override { broadcast_.finish(index_); }

 private:
  Broadcast& broadcast_;
  std::size_t index_;
};

}  // namespace pdx
