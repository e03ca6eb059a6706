#pragma once
// Where the probes' output goes (core/output.h's OutputSink, nothing printed): each host's
// stdout kept, bounded, and the time its first byte came, for the clock check; the first line
// of its stderr, for a probe that did not run.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/output.h"
#include "distribute/host_outcome.h"

namespace pdx {

class ProbeSink final : public OutputSink {
 public:
  static constexpr std::size_t kMaxOut = 256 * 1024;  // more than any probe says

  explicit ProbeSink(std::size_t hosts) : hosts_(hosts) {}
  void output(std::size_t index, Stream stream, std::string_view bytes) override;
  void finished(std::size_t, const HostResult&) override {}

  /// Read once the run is over.
  const std::string& out(std::size_t index) const { return hosts_[index].out; }
  std::string err(std::size_t index) const { return hosts_[index].err.text(); }
  std::optional<std::chrono::system_clock::time_point> first_out(std::size_t index) const {
    return hosts_[index].first_out;
  }

 private:
  struct Host {
    std::string out;
    StderrFirstLine err;
    std::optional<std::chrono::system_clock::time_point> first_out;
  };
  std::vector<Host> hosts_;  // each touched only from its host's strand during the run
};

}  // namespace pdx
