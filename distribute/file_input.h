#pragma once
// A local regular file as one operation's stdin (transport/input_source.h): pdx's own binary
// uploaded to a host that lacks the agent (distribute/remote_agent.h). Read with pread(2) from
// the start, a chunk at a time as the host takes it, so any number of hosts may read one
// descriptor at once, each at its own offset, in bounded memory. A regular file never makes a
// reader wait.
#include <cstddef>
#include <cstdint>
#include <string>

#include "transport/input_source.h"

namespace pdx {

class FileInput final : public InputSource {
 public:
  static constexpr std::size_t kChunk = 256 * 1024;

  /// Reads `fd` (not owned; it outlives this) from offset 0 to its end.
  explicit FileInput(int fd) : fd_(fd) {}
  InputPiece next() override;
  void consume(std::size_t n) override { taken_ += n; }
  void on_ready(std::function<void()>) override {}
  void on_stall(std::function<void(const std::string&)>) override {}
  void finish() override { ended_ = true; }

 private:
  int fd_;
  std::uint64_t offset_ = 0;  // of the end of buffer_ in the file
  std::string buffer_;
  std::size_t taken_ = 0;  // of buffer_
  bool ended_ = false;
};

}  // namespace pdx
