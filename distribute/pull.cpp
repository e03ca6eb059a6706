#include "distribute/pull.h"

#include <optional>

#include "core/executor.h"
#include "core/output.h"
#include "distribute/host_directory.h"
#include "distribute/unpack_process.h"

namespace pdx {

namespace {

// One host's receiving end. Used from that host's strand only.
struct Receiver {
  std::optional<UnpackProcess> unpack;  // started with the first byte of the stream
  std::optional<Error> failed;          // the first failure to start or feed it
  StderrFirstLine complaint;
};

class PullSink : public OutputSink {
 public:
  PullSink(const std::vector<Job>& jobs, const PullOptions& options)
      : jobs_(jobs), options_(options), receivers_(jobs.size()), outcomes_(jobs.size()) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    Receiver& r = receivers_[index];
    if (stream == Stream::err) {
      r.complaint.add(bytes);
      return;
    }
    if (r.failed) return;
    if (!r.unpack) {
      std::string dir = options_.local_dir;
      if (options_.host_directories) dir += "/" + host_directory(jobs_[index].label);
      auto started = UnpackProcess::start(options_.unpacker, dir);
      if (!started) {
        r.failed = Error{started.error()};
        return;
      }
      r.unpack.emplace(std::move(*started));
    }
    if (r.unpack->write(bytes)) return;
    auto done = r.unpack->finish();  // the child stopped reading: its message says why
    r.failed = Error{done ? "unpacking stopped early" : done.error()};
  }

  void finished(std::size_t index, const HostResult& result) override {
    Receiver& r = receivers_[index];
    if (r.unpack && !r.failed) {
      if (auto done = r.unpack->finish(); !done) r.failed = Error{done.error()};
    }
    r.unpack.reset();
    outcomes_[index] = outcome(r, result);
  }

  std::vector<HostOutcome> take() { return std::move(outcomes_); }

 private:
  static HostOutcome outcome(const Receiver& r, const HostResult& result) {
    if (auto lost = unfinished(result)) return *lost;
    std::string what;
    if (r.failed) what = r.failed->message;
    if (result.exit_status != 0) {
      std::string complaint = r.complaint.text();
      if (complaint.empty()) complaint = "tar exit " + std::to_string(result.exit_status);
      what += (what.empty() ? "" : "; ") + complaint;
    }
    if (what.empty()) return {0, "pulled"};
    return {1, what};
  }

  const std::vector<Job>& jobs_;
  const PullOptions& options_;
  std::vector<Receiver> receivers_;  // by job index; each touched by its host's strand only
  std::vector<HostOutcome> outcomes_;
};

}  // namespace

std::vector<HostOutcome> pull(Transport& transport, const std::vector<Job>& jobs,
                              const PullOptions& options) {
  PullSink sink(jobs, options);
  execute(transport, jobs, sink, {options.fanout, 0});
  return sink.take();
}

}  // namespace pdx
