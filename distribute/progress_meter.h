#pragma once
// The progress line of push, pull and verify on stderr (pdx(1), Progress and JSON), as
// rsync --info=progress2 draws one: a single line redrawn in place ("\r", clear to the end),
// erased before the report is printed.
//
//   push    pdx: 1.2 GiB of 3.4 GiB (35%), 150.0 MiB/s, ETA 0:15, hosts: 3 done, 1 failed, of 64
//   pull    pdx: 1.2 GiB, 150.0 MiB/s, hosts: 3 done, 0 failed, of 64
//   verify  pdx: hosts: 3 done, 1 failed, of 64
//
// The counters are atomics, bumped from any thread (the hosts' strands, the broadcast's
// readers); the line is drawn by a ticker thread of its own at most ten times a second, so what
// progress costs does not grow with the data or the hosts: nothing is drawn per byte or per host.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/output.h"

namespace pdx {

/// What the line counts: bytes of a known total (push), bytes alone (pull), or hosts (verify).
enum class Measure { bytes_of_total, bytes, hosts };

class ProgressMeter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Write = std::function<void(std::string_view)>;  // the terminal
  static constexpr std::chrono::milliseconds kRedrawEvery{100};

  ProgressMeter(Measure measure, std::size_t hosts, Write write,
                Clock clock = std::chrono::steady_clock::now);
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // From any thread.
  void add_total(std::uint64_t bytes) { total_.fetch_add(bytes, std::memory_order_relaxed); }
  void add_bytes(std::uint64_t bytes) { bytes_.fetch_add(bytes, std::memory_order_relaxed); }
  void host_ended(bool failed) {
    (failed ? failed_ : done_).fetch_add(1, std::memory_order_relaxed);
  }

  // From any thread (one lock: the terminal gets whole writes).
  /// Draws the line if it was last drawn, or the meter made, kRedrawEvery ago or more (a run
  /// shorter than that shows nothing).
  void tick();
  /// Clears the line if it is drawn.
  void erase();
  /// Writes `text` (whole lines) above the line: the line is cleared, `text` written, and the
  /// line drawn again below it, so that the two do not end up on one garbled row.
  void print(std::string_view text);

 private:
  std::string line(std::chrono::steady_clock::time_point now) const;

  const Measure measure_;
  const std::size_t hosts_;
  Write write_;
  Clock clock_;
  std::mutex mutex_;  // what is drawn: drawn_, last_, and the writes
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
  std::atomic<std::uint64_t> total_{0}, bytes_{0};
  std::atomic<std::size_t> done_{0}, failed_{0};
};

/// `text` (whole lines: a warning) on stderr, above the progress line when `meter` is not null
/// (ProgressMeter::print).
void print_above(ProgressMeter* meter, std::string_view text);

/// --progress, --no-progress, or neither: on when stderr is a terminal.
bool progress_wanted(bool progress, bool no_progress);

/// A meter and the thread that ticks it every ProgressMeter::kRedrawEvery, from construction to
/// stop(); or, made without a meter, nothing at all (progress off).
class ProgressLine {
 public:
  /// `meter` null: off.
  explicit ProgressLine(std::unique_ptr<ProgressMeter> meter);
  /// On stderr when `on`.
  ProgressLine(bool on, Measure measure, std::size_t hosts);
  ~ProgressLine() { stop(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Null when off: what push, pull and verify are handed.
  ProgressMeter* meter() { return meter_.get(); }
  /// Stops the ticker (it has ticked at least once) and erases the line. Idempotent.
  void stop();

 private:
  void run();
  std::unique_ptr<ProgressMeter> meter_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

/// The sink of a distribution pass with the meter told of each host that ends (failed: not
/// reached, interrupted, or its command exited non-zero) and, with Count::output, of the bytes
/// each host's command writes on stdout. Everything is passed on to `inner`; `meter` may be null.
/// For the distribution sinks, which print nothing: a write error of `inner` is its own.
class MeteredSink final : public OutputSink {
 public:
  enum class Count { hosts, hosts_and_output };
  MeteredSink(OutputSink& inner, ProgressMeter* meter, Count count)
      : inner_(inner), meter_(meter), count_(count) {}
  void output(std::size_t index, Stream stream, std::string_view bytes) override;
  void finished(std::size_t index, const HostResult& result) override;
  void close() override { inner_.close(); }

 private:
  OutputSink& inner_;
  ProgressMeter* meter_;
  Count count_;
};

}  // namespace pdx
