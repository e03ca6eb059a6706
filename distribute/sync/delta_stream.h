#pragma once
// The bytes one group of hosts receives in a sync: for each changed file, its delta against the
// group's old copy (agent/delta.h), made on a thread of its own and written into a pipe
// whose read end a Broadcast hands to the group (as distribute/push/frame_stream.h does for push).
// The new file is read once for the whole group; memory stays one window of it.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/delta.h"
#include "base/fd.h"
#include "base/result.h"
#include "distribute/push/push_plan.h"

namespace pdx {

struct DeltaJob {
  const LocalFile* file;       // here, and its name under DEST
  const Signature* signature;  // of the group's old copy
};

class DeltaStream {
 public:
  /// delta_file, delta_ops..., delta_end per job, then done. A file that cannot be read here, or
  /// that is not as scanned or changes while read (its size, mtime or ctime: the bytes may mix
  /// two versions), is sent with a hash that cannot match, so that no host keeps it. One that
  /// cannot be read is named in errors(); one that changed is not: the host's patch fails and
  /// the file goes whole at the second meeting, read again as it is then (sync's rereads),
  /// where it is checked the same way and named if it keeps changing.
  static Result<std::unique_ptr<DeltaStream>> start(std::vector<DeltaJob> jobs);

  /// Closes the read end (a thread blocked writing gets EPIPE) and joins the thread.
  ~DeltaStream();
  DeltaStream(const DeltaStream&) = delete;
  DeltaStream& operator=(const DeltaStream&) = delete;

  int input() const { return read_.get(); }
  /// After the run: what could not be read here, and the bytes of frames written.
  std::vector<std::string> errors() const;
  std::uint64_t bytes() const { return bytes_; }

 private:
  DeltaStream() = default;
  void produce(const std::vector<DeltaJob>& jobs, int out);

  Fd read_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<std::string> errors_;
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace pdx
