#pragma once
// Output sinks: where the hosts' bytes go while the executor runs (ARCHITECTURE.md, "Output promises").
//
//   PrefixSink   default: "host: line" as lines complete; -N drops the prefix
//   GatherSink   -b: whole outputs kept, identical ones printed once under the folded host set
//   OutdirSink   --outdir DIR: DIR/HOST.out and DIR/HOST.err, written as bytes arrive
//   JsonSink     --json: one JSON object per host on stdout when the host finishes
//
// Thread safety: output() and finished() are called from many strands at once, but for one
// host always from that host's strand, in order; sinks lock only what hosts share (the
// terminal). close() is called once, after every host finished.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "transport/transport.h"

namespace pdx {

class OutputSink : public JobIo {
 public:
  /// The host at `index` is done: nothing more will come from it.
  virtual void finished(std::size_t index, const HostResult& result) = 0;
  /// Every host is done (or never started): write what is still held.
  virtual void close() {}
};

/// Where a printing sink writes: stdout and stderr, unless a test says otherwise.
struct OutputFds {
  int out = 1;
  int err = 2;
};

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

/// Write all of `data` to fd, retrying short writes and EINTR. Output errors (EPIPE, a full disk)
/// are dropped: a run is not stopped because its reader went away.
void write_all(int fd, std::string_view data);

}  // namespace pdx
