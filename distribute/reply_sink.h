#pragma once
// The OutputSink of a distribution pass: each host's stdout (the agent's reply frames) and the
// end of its stderr (what a shell or a failed agent said) kept in memory, bounded, to be decoded
// once the host is done. Nothing is printed.
#include <cstddef>
#include <string>
#include <vector>

#include "core/output.h"

namespace pdx {

class ReplySink : public OutputSink {
 public:
  static constexpr std::size_t kMaxReply = 64 * 1024 * 1024;  // a listing of ~500k files
  static constexpr std::size_t kMaxStderr = 4096;             // the last bytes kept

  explicit ReplySink(std::size_t hosts) : replies_(hosts) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override;
  void finished(std::size_t index, const HostResult& result) override;

  struct Reply {
    std::string out;
    std::string err;
    bool overflow = false;  // stdout went past kMaxReply: the rest was dropped
    HostResult result;
  };
  /// After the run: job index -> what came back.
  std::vector<Reply>& replies() { return replies_; }

 private:
  std::vector<Reply> replies_;  // one per job; each touched only from that job's strand
};

/// The last non-empty line of `err`, control characters replaced: what to show of a host's
/// stderr in a one-line failure.
std::string last_line(const std::string& err);

}  // namespace pdx
