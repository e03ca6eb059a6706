#pragma once
// Output sinks: where the hosts' bytes go while the executor runs (ARCHITECTURE.md, "Output promises").
//
//   PrefixSink   default: "host: line" as lines complete; -N drops the prefix
//   GatherSink   -b: outputs held (core/held_output.h), identical ones printed once under the
//                folded set of hosts
//   OutdirSink   --outdir DIR: DIR/HOST.out and DIR/HOST.err, written as bytes arrive
//   JsonSink     --json: one JSON object per host on stdout when the host finishes
//
// Thread safety: output() and finished() are called from many strands at once, but for one
// host always from that host's strand, in order; sinks lock only what hosts share (the
// terminal). close() is called once, after every host finished.
//
// Write errors: the first failed write (a closed pipe, a full disk) is kept as the sink's
// error(), the callback given to on_error() is called (the executor stops the run with it), and
// from then on the sink writes and holds nothing more.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transport/transport.h"

namespace pdx {

/// A write that failed: to what ("standard output", "DIR/node1.out") and the errno value.
struct OutputError {
  std::string name;
  int error = 0;
  /// EPIPE: the reader went away (`pdx ... | head`). Not worth a message; pdx exits 141.
  bool broken_pipe() const;
  /// "cannot write to standard output: No space left on device"
  std::string message() const;
};

class OutputSink : public JobIo {
 public:
  /// The host at `index` is done: nothing more will come from it.
  virtual void finished(std::size_t index, const HostResult& result) = 0;
  /// Every host is done (or never started): write what is still held.
  virtual void close() {}

  /// `stop` is called once, on the thread whose write failed first. Set it before the run and
  /// clear it (empty function) after: it may only refer to what lives that long.
  void on_error(std::function<void()> stop);
  /// The first write error, if there was one.
  std::optional<OutputError> error() const;

 protected:
  /// Writes all of `data` to `fd` (retrying short writes and EINTR), `name` being what fd is.
  /// False once an error is recorded (this write's or an earlier one): nothing more is written.
  bool write(int fd, std::string_view data, const std::string& name);
  /// Records `e` as this sink's error if it is the first, and stops the run.
  void fail(OutputError e);
  /// True once an error was recorded: output() calls may drop what they are given.
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex error_mutex_;
  std::optional<OutputError> error_;
  std::function<void()> stop_;
  std::atomic<bool> failed_{false};
};

/// Where a printing sink writes: stdout and stderr, unless a test says otherwise.
struct OutputFds {
  int out = 1;
  int err = 2;
};

/// The names a printing sink gives its fds in errors.
inline const std::string kStdoutName = "standard output";
inline const std::string kStderrName = "standard error";

enum class Prefix { yes, no };
enum class Colour { yes, no };

/// Colour is wanted when `fd` is a terminal and NO_COLOR is unset or empty. Sinks given
/// Colour::yes colour stdout and colour stderr only if colour_for(stderr) says so too.
Colour colour_for(int fd);

std::unique_ptr<OutputSink> make_prefix_sink(std::vector<std::string> labels, Prefix prefix,
                                             Colour colour, OutputFds fds = {});
std::unique_ptr<OutputSink> make_gather_sink(std::vector<std::string> labels, Colour colour,
                                             OutputFds fds = {});
/// Throws FatalError if DIR cannot be created.
std::unique_ptr<OutputSink> make_outdir_sink(std::vector<std::string> labels, std::string dir);
std::unique_ptr<OutputSink> make_json_sink(std::vector<std::string> labels, OutputFds fds = {});

/// Writes all of `data` to fd, retrying short writes and EINTR. Returns 0, or the errno value of
/// the write that failed.
int write_all(int fd, std::string_view data);

}  // namespace pdx
