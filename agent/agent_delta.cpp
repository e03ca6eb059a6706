#include "agent/agent_delta.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "agent/delta_protocol.h"
#include "agent/patch.h"
#include "archive/temp_file.h"
#include "archive/unpack_file.h"
#include "base/fd.h"

namespace pdx {

namespace fs = std::filesystem;

namespace {

constexpr int kFileFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;  // never a FIFO's wait

// Frames from `in` to `handle` until it says the stream is done.
template <class Handle>
Result<void> read_frames(FrameInput& in, Handle handle,
                         FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes) {
  FrameReader reader(in, ahead);
  for (;;) {
    auto frame = TRY(reader.next());
    if (!frame) return Error{"input ended before the sync was complete"};
    if (TRY(handle(*frame))) return {};
  }
}
template <class Handle>
Result<void> read_frames(int in, Handle handle,
                         FrameReader::ReadAhead ahead = FrameReader::ReadAhead::yes) {
  FdInput input(in);
  return read_frames(input, handle, ahead);
}

// `path` below `dir`, no symlink followed on the way or at its end.
int open_beneath(int dir, const std::string& path, std::uint64_t flags) {
  struct open_how how {};
  how.flags = flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, path.c_str(), &how, sizeof how));
}

// Where NAME is: the directory it is in, opened, and its last component ("" is DEST itself). When
// that directory cannot be opened, `dir` is not valid and `error` holds the errno of why, taken
// as the call failed: what runs after it (closing DEST, freeing) may change errno.
struct Place {
  Fd dir;
  std::string leaf;
  int error = 0;
  std::string reason() const {
    return error == ELOOP ? "a symlink on the way is not followed" : std::strerror(error);
  }
};

Place place(const std::string& dest, const std::string& name) {
  fs::path where = name.empty() ? fs::path(dest) : fs::path(dest) / name;
  Place placed{Fd(), where.filename().string()};
  if (name.empty()) {
    fs::path parent = where.parent_path().empty() ? "." : where.parent_path();
    placed.dir = Fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!placed.dir) placed.error = errno;
    return placed;
  }
  auto slash = name.rfind('/');
  std::string up = slash == std::string::npos ? "." : name.substr(0, slash);
  Fd root(::open(dest.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root) placed.dir = Fd(open_beneath(root.get(), up, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!placed.dir) placed.error = errno;  // root's open, or open_beneath's
  return placed;
}

// The places of the names asked for signatures, as place() finds them, the last directory kept
// open: the names come directory by directory (a listing's order), so each is opened once, not
// once per name.
class Places {
 public:
  explicit Places(const std::string& dest) : dest_(dest) {}
  // NAME's place, valid until the next call.
  const Place& of(const std::string& name) {
    auto slash = name.rfind('/');
    std::string up = slash == std::string::npos ? "." : name.substr(0, slash);
    if (name.empty() || !kept_ || up != up_) {
      last_ = place(dest_, name);
      up_ = std::move(up);
      kept_ = !name.empty();
    }
    if (!name.empty()) last_.leaf = slash == std::string::npos ? name : name.substr(slash + 1);
    return last_;
  }

 private:
  const std::string& dest_;
  Place last_;
  std::string up_;     // last_'s directory, as named under DEST
  bool kept_ = false;  // last_ is up_'s (not DEST's own place)
};

// Whether the host's NAME (`st`) has the modification time asked for (same_mtime).
bool same_mtime(const struct stat& st, const SignatureRequest& rq) {
  return pdx::same_mtime(st.st_mtim.tv_sec, static_cast<std::uint32_t>(st.st_mtim.tv_nsec),
                         rq.mtime_sec, rq.mtime_nsec);
}

// The old file `rq` names (at `placed`), with how it stands: the same where it has the size and
// time asked for (one stat, nothing opened); else opened, an Fd only for a regular file.
std::pair<Fd, OldState> open_old(const Place& placed, const SignatureRequest& rq, struct stat& st) {
  if (!placed.dir)
    return {Fd(), placed.error == ENOENT || placed.error == ENOTDIR ? OldState::missing
                                                                    : OldState::other};
  if (::fstatat(placed.dir.get(), placed.leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return {Fd(), errno == ENOENT || errno == ENOTDIR ? OldState::missing : OldState::other};
  if (S_ISDIR(st.st_mode)) return {Fd(), OldState::directory};
  if (!S_ISREG(st.st_mode)) return {Fd(), OldState::other};
  if (static_cast<std::uint64_t>(st.st_size) == rq.size && same_mtime(st, rq))
    return {Fd(), OldState::same};
  Fd fd(::openat(placed.dir.get(), placed.leaf.c_str(), kFileFlags));  // no symlink, no FIFO
  if (!fd) return {Fd(), errno == ENOENT ? OldState::missing : OldState::other};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {Fd(), OldState::other};
  return {std::move(fd), OldState::changed};
}

// How a directory or symlink NAME (at `placed`) stands against what is asked: the same (a
// directory of that mode and mtime, a symlink to that target) or not.
OldState stands(const Place& placed, const SignatureRequest& rq) {
  if (!placed.dir) return placed.error == ENOENT ? OldState::missing : OldState::other;
  struct stat st;
  if (::fstatat(placed.dir.get(), placed.leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? OldState::missing : OldState::other;
  if (S_ISDIR(st.st_mode))
    return rq.kind == EntryKind::directory && (st.st_mode & 07777) == rq.mode && same_mtime(st, rq)
               ? OldState::same
               : OldState::directory;
  if (!S_ISLNK(st.st_mode) || rq.kind != EntryKind::symlink) return OldState::other;
  std::string target(kMaxName + 1, '\0');
  ssize_t n = ::readlinkat(placed.dir.get(), placed.leaf.c_str(), target.data(), target.size());
  if (n < 0) return OldState::other;
  target.resize(static_cast<std::size_t>(n));
  return target == rq.target ? OldState::same : OldState::other;
}

Result<void> answer(Places& places, const SignatureRequest& rq, FrameBatch& out, unsigned threads,
                    Summary& summary) {
  const Place& placed = places.of(rq.name);
  if (rq.kind != EntryKind::file)
    return out.add(FrameType::sig_reply, encode(SignatureReply{rq.name, stands(placed, rq)}));
  struct stat st {};
  auto [fd, state] = open_old(placed, rq, st);
  std::optional<Signature> signature;
  if (state == OldState::changed) {
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size == rq.size && same_mtime(st, rq)) {
      state = OldState::same;
    } else if (rq.want) {
      auto computed = compute_signature(fd.get(), size, threads);
      if (computed)
        signature = std::move(*computed);
      else
        state = OldState::other;  // unreadable: sent whole
    }
  }
  SignatureReply reply{rq.name, state};
  if (state == OldState::changed) {
    reply.size = static_cast<std::uint64_t>(st.st_size);
    reply.block = block_length(reply.size);
  }
  TRY(out.add(FrameType::sig_reply, encode(reply)));
  if (!signature) return {};
  ++summary.files;
  summary.bytes += signature->size;
  const auto& blocks = signature->blocks;
  for (std::size_t i = 0; i < blocks.size(); i += kBlocksPerFrame)
    TRY(out.add(FrameType::sig_blocks,
                encode_blocks(blocks.data() + i, std::min(kBlocksPerFrame, blocks.size() - i))));
  return {};
}

// A file being patched: where it goes, what it must be, the patch so far.
struct Incoming {
  DeltaHeader header;
  std::string path;  // DEST/NAME, for messages
  Fd dir, basis;
  std::optional<UnpackFile> file;  // empty: failed, its ops are skipped
  std::optional<Patcher> patcher;
  std::int64_t written = 0;
};

class PatchReceiver {
 public:
  PatchReceiver(std::string dest, int out) : dest_(std::move(dest)), out_(out) {}

  // True at `done`.
  Result<bool> handle(const FrameView& frame) {
    switch (frame.type) {
      case FrameType::delta_file: {
        if (incoming_) return Error{"delta file frame inside another file"};
        DeltaHeader header = TRY(decode_delta_header(frame.payload));
        TRY(begin(std::move(header)));
        return false;
      }
      case FrameType::delta_ops:
        if (!incoming_) return Error{"delta ops frame outside a file"};
        TRY(ops(frame.payload));
        return false;
      case FrameType::delta_end: {
        if (!incoming_) return Error{"delta end frame outside a file"};
        DeltaEnd e = TRY(decode_delta_end(frame.payload));
        TRY(end(e));
        return false;
      }
      case FrameType::done:
        if (incoming_) return Error{"stream ended inside a file"};
        TRY(out_.add(FrameType::summary, encode(summary_)));
        TRY(out_.flush());
        return true;
      default:
        return Error{"unexpected frame type " + std::to_string(int(frame.type))};
    }
  }
  const Summary& summary() const { return summary_; }

 private:
  Result<void> fail(Incoming& in, const std::string& reason) {
    in.file.reset();
    in.patcher.reset();
    ++summary_.failures;
    return out_.add(FrameType::failed, encode(Failed{in.path, reason}));
  }

  Result<void> begin(DeltaHeader header) {
    Incoming& in = incoming_.emplace();
    in.path = header.name.empty() ? dest_ : (fs::path(dest_) / header.name).string();
    in.header = std::move(header);
    Place placed = place(dest_, in.header.name);
    if (!placed.dir) return fail(in, placed.reason());
    in.dir = std::move(placed.dir);
    const std::string& leaf = placed.leaf;
    in.basis = Fd(::openat(in.dir.get(), leaf.c_str(), kFileFlags));
    struct stat st {};
    if (!in.basis || ::fstat(in.basis.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::uint64_t>(st.st_size) != in.header.basis_size)
      return fail(in, "the old file changed since its signature was taken");
    std::string temp =
        "." + leaf + ".pdx-" + std::to_string(::getpid()) + "-" + std::to_string(++files_started_);
    auto file =
        UnpackFile::create(in.dir.get(), leaf, temp, in.header.mode, hiding_.in(in.dir.get()));
    if (!file) return fail(in, file.error());
    in.file.emplace(std::move(*file));
    in.patcher.emplace(in.basis.get(), in.header.basis_size, in.header.block,
                       [&in](std::string_view bytes) -> Result<void> {
                         TRY(in.file->write(bytes, in.written));
                         in.written += static_cast<std::int64_t>(bytes.size());
                         return {};
                       });
    return {};
  }

  Result<void> ops(std::string_view payload) {
    Incoming& in = *incoming_;
    if (!in.patcher) return {};  // failed already: skipped
    auto applied = decode_ops(payload, *in.patcher);
    if (applied) return {};
    if (applied.error_kind() == ErrorKind::bad_input) return Error{applied.error()};
    return fail(in, applied.error());
  }

  Result<void> end(const DeltaEnd& e) {
    Result<void> done = commit(*incoming_, e);
    incoming_.reset();
    return done;
  }

  Result<void> commit(Incoming& in, const DeltaEnd& e) {
    if (!in.patcher) return {};
    if (in.patcher->size() != e.size || in.patcher->digest() != e.hash)
      return fail(in, "checksum differs from the source");
    TRY(in.file->extend_to(static_cast<std::int64_t>(e.size)));
    struct timespec times[2] = {{0, UTIME_OMIT},
                                {in.header.mtime_sec, static_cast<long>(in.header.mtime_nsec)}};
    if (::fchmod(in.file->fd(), in.header.mode) != 0 || ::futimens(in.file->fd(), times) != 0)
      return fail(in, std::strerror(errno));
    auto committed = in.file->commit();
    if (!committed) return fail(in, committed.error());
    ++summary_.files;
    summary_.bytes += e.size;
    return out_.add(FrameType::written, encode(Written{in.header.name, e.size}));
  }

  std::string dest_;
  FrameBatch out_;  // the receipts: one write per 64 KiB of them, not one per file
  HidingByFilesystem hiding_;
  std::optional<Incoming> incoming_;
  std::uint64_t files_started_ = 0;
  Summary summary_;
};

// Removes DEST/NAME (not following a symlink, a directory only when empty); a Failed reply
// when it cannot be.
Result<void> remove_entry(const std::string& dest, const Entry& entry, int out, Summary& summary) {
  auto failed = [&](const std::string& reason) {
    ++summary.failures;
    std::string path = entry.name.empty() ? dest : (fs::path(dest) / entry.name).string();
    return write_frame(out, FrameType::failed, encode(Failed{path, reason}));
  };
  if (entry.name.empty()) return failed("the destination itself is never deleted");
  Place placed = place(dest, entry.name);
  if (!placed.dir) return placed.error == ENOENT ? Result<void>{} : failed(placed.reason());
  const Fd& dir = placed.dir;
  const std::string& leaf = placed.leaf;
  struct stat up;
  bool up_known = ::fstat(dir.get(), &up) == 0;
  struct stat st {};
  if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      ::unlinkat(dir.get(), leaf.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0)
    return errno == ENOENT ? Result<void>{} : failed(std::strerror(errno));
  // The directory keeps its mtime, as sync set it from the source's (rsync -a: the same).
  struct timespec times[2] = {{0, UTIME_OMIT}, up.st_mtim};
  if (up_known) ::futimens(dir.get(), times);
  ++summary.files;
  return {};
}

}  // namespace

Result<void> agent_signatures(const std::string& dest, int in, int out, unsigned threads) {
  Summary summary;
  Places places(dest);
  FrameBatch replies(out);
  auto handle = [&](const FrameView& frame) -> Result<bool> {
    if (frame.type == FrameType::done) return true;
    if (frame.type != FrameType::sig_request)
      return Error{"unexpected frame type " + std::to_string(int(frame.type))};
    SignatureRequest rq = TRY(decode_signature_request(frame.payload));
    TRY(answer(places, rq, replies, threads, summary));
    return false;
  };
  // Not past the requests' end: what follows is the next step's (`pdx agent --signatures=DEST
  // --patch=DEST ...`, cmd/agent.cpp).
  TRY(read_frames(in, handle, FrameReader::ReadAhead::no));
  TRY(replies.add(FrameType::summary, encode(summary)));
  return replies.flush();
}

Result<Summary> agent_patch(const std::string& dest, int in, int out,
                            FrameReader::ReadAhead ahead) {
  FdInput input(in);
  return agent_patch(dest, input, out, ahead);
}

Result<Summary> agent_patch(const std::string& dest, FrameInput& in, int out,
                            FrameReader::ReadAhead ahead) {
  PatchReceiver receiver(dest, out);
  TRY(read_frames(
      in, [&](const FrameView& frame) { return receiver.handle(frame); }, ahead));
  return receiver.summary();
}

Result<Summary> agent_delete(const std::string& dest, int in, int out,
                             FrameReader::ReadAhead ahead) {
  Summary summary;
  auto handle = [&](const FrameView& frame) -> Result<bool> {
    if (frame.type == FrameType::done) return true;
    if (frame.type != FrameType::entry)
      return Error{"unexpected frame type " + std::to_string(int(frame.type))};
    Entry entry = TRY(decode_entry(frame.payload));
    TRY(remove_entry(dest, entry, out, summary));
    return false;
  };
  TRY(read_frames(in, handle, ahead));
  TRY(write_frame(out, FrameType::summary, encode(summary)));
  return summary;
}

}  // namespace pdx
