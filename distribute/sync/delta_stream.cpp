#include "distribute/sync/delta_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/delta_protocol.h"
#include "archive/temp_file.h"
#include "base/quiet_threads.h"

namespace pdx {

namespace {

const std::string kChanged = "changed while being sent";

bool same_time(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Whether `st` is the file as it was scanned: the same size and mtime (as a push checks).
bool as_scanned(const struct stat& st, const LocalFile& f) {
  return static_cast<std::uint64_t>(st.st_size) == f.size && st.st_mtim.tv_sec == f.mtime_sec &&
         static_cast<std::uint32_t>(st.st_mtim.tv_nsec) == f.mtime_nsec;
}

// Whether nothing wrote to the file between two fstats: its size, mtime and ctime (a write that
// set the mtime back still moves the ctime), to the nanosecond.
bool unchanged(const struct stat& before, const struct stat& after) {
  return before.st_size == after.st_size && same_time(before.st_mtim, after.st_mtim) &&
         same_time(before.st_ctim, after.st_ctim);
}

// The delta of `f` against `old` into `ops`, checked to be of the file as scanned and as it was
// from the first read to the last: bytes that may mix two versions of it are an Error (kChanged),
// for the stream to end the file with a delta_end that no host accepts.
Result<DeltaResult> delta_of(const LocalFile& f, const Signature& old, OpsEncoder& ops) {
  Fd in(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat before;
  struct stat after;
  if (!in || ::fstat(in.get(), &before) != 0) return Error{std::strerror(errno)};
  if (!as_scanned(before, f)) return Error{kChanged};
  DeltaResult delta = TRY(compute_delta(in.get(), old, ops));
  if (::fstat(in.get(), &after) != 0) return Error{std::strerror(errno)};
  if (!unchanged(before, after) || delta.size != f.size) return Error{kChanged};
  return delta;
}

}  // namespace

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
    Result<DeltaResult> delta = delta_of(f, old, ops);
    if (delta) delta = ops.finish().ok() ? std::move(delta) : Result<DeltaResult>(Error{"pipe"});
    if (!sent) return;
    DeltaEnd end;
    if (delta) {
      end = DeltaEnd{delta->size, delta->hash};
    } else {
      // A file that changed is read again as it is then and sent whole (the hosts' patches of it
      // fail): that send says if it changes again.
      if (delta.error() != kChanged) {
        std::lock_guard lock(mutex_);
        errors_.push_back(f.path + ": " + delta.error());
      }
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
