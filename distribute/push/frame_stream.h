#pragma once
// The bytes one group of hosts receives in a push: frames made on a thread of their own and
// written into a pipe, whose read end a Broadcast (transport/broadcast.h) hands to every host of
// the group. The pipe's capacity and the broadcast's window bound the memory; the thread blocks
// while the slowest host holds the window.
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "distribute/push/push_plan.h"

namespace pdx {

class FrameStream {
 public:
  /// The directories, files and symlinks of `plan` from `layout`, then `done`. Each file is read as
  /// it is sent and hashed on the way; one that cannot be read, or is not as scanned (its size or
  /// mtime changed before or while it was read), is abandoned (kAbandoned), so that no host
  /// keeps it. One that changed is sent again as it is now (a file frame of the same name), up
  /// to `rereads` times; what is still abandoned then is named in errors().
  static Result<std::unique_ptr<FrameStream>> files(const Layout& layout, const HostPushPlan& plan,
                                                    int rereads = 0);
  /// An archive stream: the parts read in order (archive/part_reader.h), then `done`. No
  /// archive_end after a read error (named in errors()): the hosts place nothing.
  static Result<std::unique_ptr<FrameStream>> archive(std::vector<std::string> parts);

  /// Closes the read end (a thread blocked writing gets EPIPE) and joins the thread.
  ~FrameStream();
  FrameStream(const FrameStream&) = delete;
  FrameStream& operator=(const FrameStream&) = delete;

  /// The pipe's read end, for Broadcast::start. Owned here.
  int input() const { return read_.get(); }
  /// What could not be read here, one line each ("data/x: changed while being sent"). After the
  /// run.
  std::vector<std::string> errors() const;

 private:
  FrameStream() = default;
  template <class Produce>
  static Result<std::unique_ptr<FrameStream>> start(Produce produce);
  void note(std::string error);

  Fd read_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<std::string> errors_;
};

}  // namespace pdx
