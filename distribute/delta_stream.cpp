#include "distribute/delta_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "archive/temp_file.h"
#include "base/quiet_threads.h"
#include "distribute/delta_protocol.h"

namespace pdx {

Result<std::unique_ptr<DeltaStream>> DeltaStream::start(std::vector<DeltaJob> jobs) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::unique_ptr<DeltaStream> stream(new DeltaStream());
  stream->read_ = Fd(fds[0]);
  QuietThreads quiet;
  stream->thread_ = std::thread(
      [s = stream.get(), jobs = std::move(jobs), w = Fd(fds[1])] { s->produce(jobs, w.get()); });
  return stream;
}

void DeltaStream::produce(const std::vector<DeltaJob>& jobs, int out) {
  // The first failed write (the read end closed: the run is over) ends the stream.
  auto send = [&](FrameType type, std::string_view payload) -> Result<void> {
    std::string frame = encode_frame(type, payload);
    TRY(write_all(out, frame.data(), frame.size(), "pipe"));
    bytes_ += frame.size();
    return {};
  };
  for (const DeltaJob& job : jobs) {
    const LocalFile& f = *job.file;
    const Signature& old = *job.signature;
    if (!send(FrameType::delta_file,
              encode(DeltaHeader{f.name, f.mode, f.mtime_sec, f.mtime_nsec, old.size, old.block})))
      return;
    bool sent = true;  // false: a write to the pipe failed
    OpsEncoder ops([&](std::string_view payload) -> Result<void> {
      auto written = send(FrameType::delta_ops, payload);
      sent = written.ok();
      return written;
    });
    Fd in(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
    Result<DeltaResult> delta = Error{std::strerror(errno)};
    if (in) delta = compute_delta(in.get(), old, ops);
    if (delta) delta = ops.finish().ok() ? std::move(delta) : Result<DeltaResult>(Error{"pipe"});
    if (!sent) return;
    DeltaEnd end;
    if (delta) {
      end = DeltaEnd{delta->size, delta->hash};
    } else {
      std::lock_guard lock(mutex_);
      errors_.push_back(f.path + ": " + delta.error());
      end.size = UINT64_MAX;  // matches nothing
    }
    if (!send(FrameType::delta_end, encode(end))) return;
  }
  send(FrameType::done, "");
}

DeltaStream::~DeltaStream() {
  read_.reset();
  if (thread_.joinable()) thread_.join();
}

std::vector<std::string> DeltaStream::errors() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

}  // namespace pdx
