// --json: one JSON object per host, on one line, written when the host finishes (completion
// order). Keys: host, rank, exit_status, signal, stdout, stderr, duration (seconds), error.
// Each host's output is held until it finishes (core/held_output.h: kHeldMemory in memory
// for all hosts together, the rest in an unlinked temporary file), then escaped and written in
// pieces: a long output is never copied whole.
#include <array>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "core/held_output.h"
#include "core/json.h"
#include "core/output.h"
#include "core/summary.h"

namespace pdx {

namespace {

class JsonSink final : public OutputSink {
 public:
  JsonSink(std::vector<std::string> labels, OutputFds fds)
      : labels_(std::move(labels)), spill_(kHeldMemory), fds_(fds) {
    outputs_.reserve(labels_.size());
    for (std::size_t i = 0; i < labels_.size(); ++i)
      outputs_.push_back({HeldOutput(spill_), HeldOutput(spill_)});
  }

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    if (failed()) return;
    if (int error = outputs_[index][stream == Stream::out ? 0 : 1].append(bytes))
      fail({spill_.name(), error});
  }

  void finished(std::size_t index, const HostResult& r) override {
    char duration[32];
    std::snprintf(duration, sizeof duration, "%.3f",
                  std::chrono::duration<double>(r.duration).count());
    std::string head =
        "{\"host\":" + json_string(labels_[index]) + ",\"rank\":" + std::to_string(index) +
        ",\"exit_status\":" + std::to_string(exit_status_of(r)) +
        ",\"signal\":" + (r.signal.empty() ? "null" : json_string(r.signal)) + ",\"stdout\":";
    std::string tail = ",\"duration\":" + std::string(duration) + ",\"error\":" +
                       (r.failure == Failure::none ? "null" : json_string(r.error)) + "}\n";
    std::lock_guard lock(mutex_);
    write_string(head) && write_output(outputs_[index][0]) && write_string(",\"stderr\":") &&
        write_output(outputs_[index][1]) && write_string(tail);
    for (auto& held : outputs_[index]) held.release();
  }

 private:
  bool write_string(std::string_view s) { return write(fds_.out, s, kStdoutName); }

  // `held` as a JSON string, escaped a piece at a time.
  bool write_output(const HeldOutput& held) {
    JsonEscaper escaper;
    std::string buf = "\"";
    bool ok = true;
    int error = held.for_each([&](std::string_view piece) {
      escaper.escape(piece, buf);
      if (buf.size() >= HeldOutput::kChunk) ok = write_string(std::exchange(buf, {}));
      return ok;
    });
    if (error) fail({spill_.name(), error});
    if (!ok || error) return false;
    escaper.finish(buf);
    buf += '"';
    return write_string(buf);
  }

  std::vector<std::string> labels_;
  SpillFile spill_;  // before outputs_: their HeldOutputs give their ranges back to it
  std::vector<std::array<HeldOutput, 2>> outputs_;  // per host: stdout, stderr
  OutputFds fds_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<OutputSink> make_json_sink(std::vector<std::string> labels, OutputFds fds) {
  return std::make_unique<JsonSink>(std::move(labels), fds);
}

}  // namespace pdx
