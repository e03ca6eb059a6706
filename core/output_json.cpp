// --json: one JSON object per host, on one line, written when the host finishes (completion
// order). Keys: host, rank, exit_status, signal, stdout, stderr, duration (seconds), error.
// Holds each host's output until it finishes.
#include <array>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "core/json.h"
#include "core/output.h"
#include "core/summary.h"

namespace pdx {

namespace {

class JsonSink final : public OutputSink {
 public:
  JsonSink(std::vector<std::string> labels, OutputFds fds)
      : labels_(std::move(labels)), outputs_(labels_.size()), fds_(fds) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    outputs_[index][stream == Stream::out ? 0 : 1].append(bytes);
  }

  void finished(std::size_t index, const HostResult& r) override {
    char duration[32];
    std::snprintf(duration, sizeof duration, "%.3f",
                  std::chrono::duration<double>(r.duration).count());
    std::string line =
        "{\"host\":" + json_string(labels_[index]) + ",\"rank\":" + std::to_string(index) +
        ",\"exit_status\":" + std::to_string(exit_status_of(r)) +
        ",\"signal\":" + (r.signal.empty() ? "null" : json_string(r.signal)) +
        ",\"stdout\":" + json_string(outputs_[index][0]) +
        ",\"stderr\":" + json_string(outputs_[index][1]) + ",\"duration\":" + duration +
        ",\"error\":" + (r.failure == Failure::none ? "null" : json_string(r.error)) + "}\n";
    outputs_[index] = {};
    std::lock_guard lock(mutex_);
    write_all(fds_.out, line);
  }

 private:
  std::vector<std::string> labels_;
  std::vector<std::array<std::string, 2>> outputs_;
  OutputFds fds_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<OutputSink> make_json_sink(std::vector<std::string> labels, OutputFds fds) {
  return std::make_unique<JsonSink>(std::move(labels), fds);
}

}  // namespace pdx
