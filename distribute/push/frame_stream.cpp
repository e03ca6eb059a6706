#include "distribute/push/frame_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>

#include "agent/wide_pipe.h"
#include "archive/part_reader.h"
#include "base/quiet_threads.h"
#include "hash/xxh3.h"

namespace pdx {

namespace {

// Writes all of `parts` (a pipe may take less than asked at a time); false if `fd` cannot be
// written (EPIPE: the read end closed).
bool write_parts(int fd, std::span<iovec> parts) {
  while (!parts.empty()) {
    ssize_t n = ::writev(fd, parts.data(), static_cast<int>(parts.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    auto done = static_cast<std::size_t>(n);
    while (!parts.empty() && done >= parts.front().iov_len) {
      done -= parts.front().iov_len;
      parts = parts.subspan(1);
    }
    if (!parts.empty()) {
      parts.front().iov_base = static_cast<char*>(parts.front().iov_base) + done;
      parts.front().iov_len -= done;
    }
  }
  return true;
}

// Writes frames to the pipe, each payload from where it lies; the first failure (the read end
// closed) ends the stream.
class FrameWriter {
 public:
  explicit FrameWriter(int fd) : fd_(fd) {}
  bool send(FrameType type, std::string_view payload) {
    if (!ok_) return false;
    auto header = frame_header(type, payload.size());
    iovec parts[] = {{header.data(), header.size()},
                     {const_cast<char*>(payload.data()), payload.size()}};
    ok_ = write_parts(fd_, parts);
    return ok_;
  }

 private:
  int fd_;
  bool ok_ = true;
};

// Whether `st` is the file as it was scanned: the same size and mtime.
bool as_scanned(const struct stat& st, const LocalFile& f) {
  return static_cast<std::uint64_t>(st.st_size) == f.size && st.st_mtim.tv_sec == f.mtime_sec &&
         static_cast<std::uint32_t>(st.st_mtim.tv_nsec) == f.mtime_nsec;
}

const std::string kChanged = "changed while being sent";

// Where the data after `at` in `fd` starts (SEEK_DATA): `at` itself where the filesystem cannot
// tell, `size` when only a hole is left.
std::uint64_t next_data(int fd, std::uint64_t at, std::uint64_t size) {
  off_t found = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
  if (found < 0) return errno == ENXIO ? size : at;
  return std::min(static_cast<std::uint64_t>(found), size);
}

// Where the hole after `at` (in data) starts (SEEK_HOLE): `size` where none is known.
std::uint64_t next_hole(int fd, std::uint64_t at, std::uint64_t size) {
  off_t found = ::lseek(fd, static_cast<off_t>(at), SEEK_HOLE);
  if (found < 0) return size;
  return std::max(at, std::min(static_cast<std::uint64_t>(found), size));
}

// Sends the data of one file, hashed on the way, its holes as hole frames (zeros not sent,
// hashed all the same), and returns why it could not be sent as it was scanned ("" if it was):
// it cannot be read, or its size or mtime changed before or while it was read, or its ctime
// while it was read (the bytes sent may then mix two versions of it).
std::string send_data(FrameWriter& out, const LocalFile& f, std::string& buffer, StreamHash& hash) {
  Fd in(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  if (!in || ::fstat(in.get(), &st) != 0) return std::strerror(errno);
  if (!as_scanned(st, f)) return kChanged;
  const struct timespec ctime = st.st_ctim;  // a rewrite whose mtime is put back moves it
  // Only a file with fewer blocks than its size needs is looked at for holes.
  bool sparse = static_cast<std::uint64_t>(st.st_blocks) * 512 < f.size;
  for (std::uint64_t sent = 0; sent < f.size;) {
    std::uint64_t data = sparse ? next_data(in.get(), sent, f.size) : sent;
    if (data > sent) {
      hash_zeros(hash, data - sent);
      if (!out.send(FrameType::hole, encode(Hole{data - sent}))) return {};
      sent = data;
      continue;
    }
    std::uint64_t end = sparse ? next_hole(in.get(), sent, f.size) : f.size;
    if (end == sent) end = f.size;  // no hole where SEEK_DATA found data: read on
    while (sent < end) {
      std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - sent));
      ssize_t n = ::pread(in.get(), buffer.data(), want, static_cast<off_t>(sent));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return std::strerror(errno);
      if (n == 0) return kChanged;  // shorter now
      hash.update(buffer.data(), static_cast<std::size_t>(n));
      if (!out.send(FrameType::data, std::string_view(buffer.data(), static_cast<std::size_t>(n))))
        return {};  // no host reads any more: nothing to say
      sent += static_cast<std::size_t>(n);
    }
  }
  if (::fstat(in.get(), &st) != 0) return std::strerror(errno);
  bool same_ctime = st.st_ctim.tv_sec == ctime.tv_sec && st.st_ctim.tv_nsec == ctime.tv_nsec;
  return as_scanned(st, f) && same_ctime ? "" : kChanged;
}

// Sends one file; returns why it could not be sent as it was scanned ("" if it was): then its
// file_end says it is abandoned, and the hosts drop what came of it.
std::string send_file(FrameWriter& out, const LocalFile& f, std::string& buffer) {
  if (!out.send(FrameType::file,
                encode(FileHeader{f.name, f.mode, f.mtime_sec, f.mtime_nsec, f.size})))
    return {};
  StreamHash hash;
  std::string error = send_data(out, f, buffer, hash);
  out.send(FrameType::file_end, encode(FileEnd{error.empty() ? hex(hash.digest()) : kAbandoned}));
  return error;
}

// `f` as it is now (mode, mtime, size), to be sent again; false when it is no longer a regular
// file, for the error it met to stand.
bool restat(LocalFile& f) {
  struct stat st;
  if (::lstat(f.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  f.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
  f.mtime_sec = st.st_mtim.tv_sec;
  f.mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
  f.size = static_cast<std::uint64_t>(st.st_size);
  f.allocated = static_cast<std::uint64_t>(st.st_blocks) * 512;
  return true;
}

// Sends one file, and again as it is now, up to `rereads` times, while it changes as it is
// read; returns the error to note ("PATH: REASON"), or "".
std::string send_file_rereading(FrameWriter& out, const LocalFile& scanned, int rereads,
                                std::string& buffer) {
  std::string error = send_file(out, scanned, buffer);
  LocalFile now;  // a copy only when read again
  for (int n = 0; n < rereads && error == kChanged; ++n) {
    if (n == 0) now = scanned;
    if (!restat(now)) break;
    error = send_file(out, now, buffer);
  }
  return error.empty() ? "" : scanned.path + ": " + error;
}

}  // namespace

template <class Produce>
Result<std::unique_ptr<FrameStream>> FrameStream::start(Produce produce) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::unique_ptr<FrameStream> stream(new FrameStream());
  stream->read_ = Fd(fds[0]);
  widen_pipe(fds[1]);  // the broadcast reads what the pipe holds: 64 KiB chunks without this
  QuietThreads quiet;
  stream->thread_ = std::thread([s = stream.get(), produce = std::move(produce), w = Fd(fds[1])] {
    FrameWriter out(w.get());
    produce(out, *s);
    out.send(FrameType::done, "");
  });
  return stream;
}

Result<std::unique_ptr<FrameStream>> FrameStream::files(const Layout& layout,
                                                        const HostPushPlan& plan, int rereads) {
  return start([&layout, plan, rereads](FrameWriter& out, FrameStream& self) {
    for (std::size_t i : plan.dirs) {
      const LocalDir& d = layout.dirs[i];
      out.send(FrameType::directory, encode(Directory{d.name, d.mode, d.mtime_sec, d.mtime_nsec}));
    }
    std::string buffer(kDataChunk, '\0');
    for (std::size_t i : plan.files) {
      std::string error = send_file_rereading(out, layout.files[i], rereads, buffer);
      if (!error.empty()) self.note(std::move(error));
    }
    for (std::size_t i : plan.links) {
      const LocalLink& l = layout.links[i];
      out.send(FrameType::symlink, encode(Symlink{l.name, l.target, l.mtime_sec, l.mtime_nsec}));
    }
  });
}

Result<std::unique_ptr<FrameStream>> FrameStream::archive(std::vector<std::string> parts) {
  auto reader = std::make_shared<PartReader>(std::move(parts));
  TRY(reader->check(SetCheck::sizes));  // push() checked their contents before it sent anything
  return start([reader](FrameWriter& out, FrameStream& self) {
    out.send(FrameType::archive, "");
    std::string buffer(kDataChunk, '\0');
    for (;;) {
      auto n = reader->read(buffer.data(), buffer.size());
      if (!n) {
        // No archive_end: a stream cut at an entry's end would unpack as whole. The hosts see
        // the archive end without it and place nothing.
        self.note(n.error());
        return;
      }
      if (*n == 0) break;
      if (!out.send(FrameType::data, std::string_view(buffer.data(), *n))) return;
    }
    out.send(FrameType::archive_end, "");
  });
}

FrameStream::~FrameStream() {
  read_.reset();
  if (thread_.joinable()) thread_.join();
}

void FrameStream::note(std::string error) {
  std::lock_guard lock(mutex_);
  errors_.push_back(std::move(error));
}

std::vector<std::string> FrameStream::errors() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

}  // namespace pdx
