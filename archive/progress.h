#pragma once
// The progress line of pack and unpack: on stderr, only when stderr is a terminal.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace pdx {

/// "pdx: 1.2 GiB of 3.4 GiB in, 300.0 MiB out, 150.0 MiB/s, ETA 0:12", redrawn in place at
/// most five times a second. Silent when stderr is not a TTY. Single-threaded.
class Progress {
 public:
  Progress();
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// done of total bytes read (total 0 when unknown: no ETA then); out, when given, the bytes
  /// written.
  void update(std::uint64_t done, std::uint64_t total, std::optional<std::uint64_t> out);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point start_;
  Clock::time_point last_;
  bool drawn_ = false;
};

}  // namespace pdx
