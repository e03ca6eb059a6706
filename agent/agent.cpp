#include "agent/agent.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <thread>

#include "agent/extract_leftovers.h"
#include "agent/extract_record.h"
#include "agent/wide_pipe.h"
#include "archive/temp_file.h"
#include "archive/unpack.h"
#include "archive/unpack_file.h"
#include "base/fd.h"
#include "hash/hash_files.h"
#include "hash/xxh3.h"

namespace pdx {

namespace fs = std::filesystem;

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
const std::string kStreamPath = "/proc/self/fd/";  // unpack reads the pipe as a part

std::string join_path(const std::string& dir, const std::string& name) {
  if (name.empty()) return dir;
  return dir.ends_with('/') ? dir + name : dir + "/" + name;
}

// ---- list ----

EntryKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return EntryKind::file;
  if (S_ISDIR(mode)) return EntryKind::directory;
  if (S_ISLNK(mode)) return EntryKind::symlink;
  return EntryKind::other;
}

// `path`'s entry (lstat'ed as `st`): a symlink with its target, or "other" when that cannot be
// read.
Entry entry_of(const std::string& name, const struct stat& st, const fs::path& path) {
  Entry entry{name, kind_of(st.st_mode), static_cast<std::uint32_t>(st.st_mode & 07777),
              static_cast<std::uint64_t>(st.st_size), st.st_mtim.tv_sec};
  entry.mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
  if (entry.kind == EntryKind::symlink) {
    std::error_code ec;
    entry.target = fs::read_symlink(path, ec).string();
    if (ec || !check_target(entry.target)) {
      entry.kind = EntryKind::other;
      entry.target.clear();
    }
  }
  return entry;
}

// Entries on their way to `out`, sent in batches: with Hashed::yes, a batch's regular files are
// hashed first (XXH3-128), as many at once as there are cores (hash/hash_files.h), so that
// memory stays bounded by a batch, not the tree, and a batch is one write. A file that cannot be
// read goes without a hash.
class ListingOut {
 public:
  ListingOut(int out, Hashed hashed) : out_(out), hashed_(hashed) {}

  Result<void> add(Entry entry, const fs::path& path) {
    if (hashed_ == Hashed::yes && entry.kind == EntryKind::file) {
      to_hash_.push_back(entries_.size());
      paths_.push_back(path.string());
    }
    entries_.push_back(std::move(entry));
    if (entries_.size() >= kBatch) return flush();
    return {};
  }

  Result<void> flush() {
    auto hashes = hash_files(paths_, FileDigest::xxh3);
    for (std::size_t k = 0; k < to_hash_.size(); ++k)
      entries_[to_hash_[k]].digest = std::move(hashes[k].digest);
    std::string frames;  // one write for the batch, not one per entry
    for (const auto& entry : entries_) frames += encode_frame(FrameType::entry, encode(entry));
    TRY(write_all(out_, frames.data(), frames.size(), "standard output"));
    entries_.clear();
    to_hash_.clear();
    paths_.clear();
    return {};
  }

 private:
  static constexpr std::size_t kBatch = 4096;
  int out_;
  Hashed hashed_;
  std::vector<Entry> entries_;
  std::vector<std::size_t> to_hash_;  // positions in entries_ of those to hash
  std::vector<std::string> paths_;    // their paths, for hash_files
};

// Adds an Entry for `name` (under the listed path, at `path` here) and, for a directory,
// everything under it.
Result<void> list_tree(const fs::path& path, const std::string& name, ListingOut& listing,
                       Summary& summary) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return {};
  if (!name.empty()) TRY(listing.add(entry_of(name, st, path), path));
  if (!S_ISDIR(st.st_mode)) return {};
  std::error_code ec;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string rel = it->path().lexically_relative(path).string();
    if (!name.empty()) rel = name + "/" + rel;
    if (::lstat(it->path().c_str(), &st) != 0 || !check_name(rel).ok()) continue;
    TRY(listing.add(entry_of(rel, st, it->path()), it->path()));
    if (S_ISREG(st.st_mode)) {
      ++summary.files;
      summary.bytes += static_cast<std::uint64_t>(st.st_size);
    }
  }
  return {};
}

}  // namespace

Result<void> agent_list(const std::string& path, const std::vector<std::string>& under, int out,
                        Hashed hashed, const std::string& set) {
  Summary summary;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    TRY(write_frame(out, FrameType::entry, encode(Entry{"", EntryKind::missing})));
    return write_frame(out, FrameType::summary, encode(summary));
  }
  ListingOut listing(out, hashed);
  TRY(listing.add(entry_of("", st, path), path));
  if (S_ISDIR(st.st_mode)) {
    for (const auto& name : under) {
      if (name == ".")
        TRY(list_tree(path, "", listing, summary));
      else if (check_name(name).ok() && !name.empty())
        TRY(list_tree(fs::path(path) / name, name, listing, summary));
    }
  }
  TRY(listing.flush());
  if (!set.empty() && holds_extracted(path, set)) TRY(write_frame(out, FrameType::extracted, set));
  return write_frame(out, FrameType::summary, encode(summary));
}

namespace {

// ---- receive ----

// What UnpackFile and unpack say before a strerror, left out of a failure's reason: a file that
// cannot be created or written says why, as one that cannot be opened does.
const std::string kCannot[] = {"cannot write: ", "cannot create: "};

// A directory below `root`, opened one component at a time with O_NOFOLLOW and made where
// missing (private to its owner: the Directory frame's mode comes at the end): a symlink (or a
// file) on the way is refused with ELOOP / ENOTDIR.
Result<Fd> open_below(int root, const std::string& dir) {
  Fd current(::dup(root));
  for (std::size_t start = 0; start < dir.size();) {
    std::size_t end = std::min(dir.find('/', start), dir.size());
    std::string part = dir.substr(start, end - start);
    int fd = ::openat(current.get(), part.c_str(), kDirFlags);
    if (fd < 0 && errno == ENOENT &&
        (::mkdirat(current.get(), part.c_str(), 0700) == 0 || errno == EEXIST))
      fd = ::openat(current.get(), part.c_str(), kDirFlags);
    if (fd < 0) {
      int error = errno;
      struct stat st;
      if (::fstatat(current.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode))
        return Error{"a symlink on the way is not followed"};
      return Error{std::strerror(error)};
    }
    current = Fd(fd);
    start = end + 1;
  }
  return current;
}

// A file being received: where it goes, what it must be, what came so far.
struct Incoming {
  FileHeader header;
  std::string path;  // DEST/NAME, for messages
  Fd dir;
  std::optional<UnpackFile> file;  // empty: failed, its data frames are skipped
  StreamHash hash;
  std::uint64_t received = 0;
};

// An archive stream being unpacked on a thread of its own, fed through a pipe, into a hidden
// directory in DEST (`hidden`, absolute): its entries are moved into place only after a clean
// archive_end and unpack's success.
struct Extraction {
  Fd feed;  // write end; closed at archive_end
  std::thread thread;
  std::string hidden;
  Result<UnpackStats> result = Error{"unpack did not run"};
  std::optional<EntryFailure> failed_entry;  // unpack's, set on its thread before it ends
};

const std::string kCutShort = "the stream from pdx was cut short; nothing was placed";

using FailFn = std::function<void(const std::string& name, std::string reason)>;

// The names in the directory `dir` (held open).
std::vector<std::string> names_in(int dir) {
  std::vector<std::string> names;
  int fd = ::dup(dir);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (fd >= 0) ::close(fd);
    return names;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

// Moves what the directory `from` holds into `to` (`under`: their name below DEST, "" for DEST
// itself), entry by entry: a name `to` lacks is renamed there whole; a directory onto a
// directory is merged into, which then takes the new one's mode and mtime; a directory onto a
// symlink is refused, never entered (as unpack refuses writing through one); anything else is
// renamed over what is there (a file or symlink replaced whole). What fails is named to `fail`
// and stays in `from`. With move false, nothing is moved: what would fail is named.
void merge_into(int from, int to, const std::string& under, const FailFn& fail, bool move) {
  for (const std::string& leaf : names_in(from)) {
    std::string name = under.empty() ? leaf : under + "/" + leaf;
    struct stat src, dst;
    if (::fstatat(from, leaf.c_str(), &src, AT_SYMLINK_NOFOLLOW) != 0) {
      fail(name, std::strerror(errno));
      continue;
    }
    bool exists = ::fstatat(to, leaf.c_str(), &dst, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && S_ISDIR(src.st_mode)) {
      if (S_ISLNK(dst.st_mode)) {
        fail(name, "a symlink on the way is not followed");
        continue;
      }
      if (!S_ISDIR(dst.st_mode)) {
        fail(name, "Not a directory");
        continue;
      }
      Fd inner_from(::openat(from, leaf.c_str(), kDirFlags));
      Fd inner_to(::openat(to, leaf.c_str(), kDirFlags));  // no symlink put there since
      if (!inner_from || !inner_to) {
        fail(name, std::strerror(errno));
        continue;
      }
      merge_into(inner_from.get(), inner_to.get(), name, fail, move);
      if (!move) continue;
      struct timespec times[2] = {{0, UTIME_OMIT}, src.st_mtim};
      if (::fchmod(inner_to.get(), src.st_mode & 07777) != 0 ||
          ::futimens(inner_to.get(), times) != 0)
        fail(name, std::strerror(errno));
      continue;
    }
    if (!move) {
      if (exists && S_ISDIR(dst.st_mode)) fail(name, "Is a directory");
    } else if (::renameat(from, leaf.c_str(), to, leaf.c_str()) != 0) {
      fail(name, std::strerror(errno));
    }
  }
}

// The hidden directory and what is left in it, gone; directories made writable first, so that
// one unpacked read-only does not keep its entries.
void remove_hidden(const std::string& hidden) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(hidden, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
  ::chmod(hidden.c_str(), 0700);
  fs::remove_all(hidden, ec);
}

// Every name below `dir` (relative, parents first), symlinks not followed; nullopt when one
// cannot be read.
std::optional<std::vector<std::string>> names_below(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec))
    names.push_back(it->path().lexically_relative(dir).string());
  if (ec) return std::nullopt;
  return names;
}

class Receiver {
 public:
  // dest: absolute; shown: as given, for messages.
  Receiver(std::string dest, std::string shown, int out, std::string set)
      : dest_(std::move(dest)), shown_(std::move(shown)), out_(out), set_(std::move(set)) {}
  ~Receiver() {
    if (extraction_) abandon_extraction();
  }

  Result<void> handle(const FrameView& frame) {
    switch (frame.type) {
      case FrameType::file:
        return begin_file(TRY(decode_file_header(frame.payload)));
      case FrameType::data:
        return data(frame.payload);
      case FrameType::hole:
        return hole(TRY(decode_hole(frame.payload)));
      case FrameType::file_end:
        return end_file(TRY(decode_file_end(frame.payload)));
      case FrameType::directory:
        return directory(TRY(decode_directory(frame.payload)));
      case FrameType::symlink:
        return symlink(TRY(decode_symlink(frame.payload)));
      case FrameType::archive:
        return begin_archive();
      case FrameType::archive_end:
        return end_archive();
      case FrameType::done:
        if (incoming_) return Error{"stream ended inside a file"};
        // The archive without its archive_end: pdx could not read it all.
        if (extraction_) {
          abandon_extraction();
          fail(shown_, kCutShort);
        }
        done_ = true;
        set_directories();
        return report();
      default:
        return Error{"unexpected frame type " + std::to_string(int(frame.type))};
    }
  }
  bool done() const { return done_; }
  const Summary& summary() const { return summary_; }

 private:
  // A failure, replied at the end, folded with the others of the same reason: a full disk fails
  // every file after the first the same way, and that is one line ("PATH and 12 more").
  Result<void> fail(const std::string& path, std::string reason) {
    ++summary_.failures;
    for (const auto& cannot : kCannot)
      if (reason.starts_with(cannot)) reason.erase(0, cannot.size());
    auto same = std::find_if(failures_.begin(), failures_.end(),
                             [&](const auto& f) { return f.first.reason == reason; });
    if (same == failures_.end())
      failures_.push_back({Failed{path, std::move(reason)}, 0});
    else
      ++same->second;
    return {};
  }

  // The failures, then the summary.
  Result<void> report() {
    for (auto& [failed, more] : failures_) {
      if (more > 0) failed.path += " and " + std::to_string(more) + " more";
      TRY(out_.add(FrameType::failed, encode(failed)));
    }
    TRY(out_.add(FrameType::summary, encode(summary_)));
    return out_.flush();
  }

  // The directory DEST, made if missing (its own path may hold symlinks: the user named it).
  Result<int> root() {
    if (!root_) {
      std::error_code ec;
      fs::create_directories(dest_, ec);
      int fd = ::open(dest_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return Error{std::strerror(errno)};
      root_ = Fd(fd);
    }
    return root_.get();
  }

  // Where NAME goes: its directory, opened, and its last component. "" is DEST itself.
  Result<std::pair<Fd, std::string>> place(const std::string& name) {
    if (name.empty()) {
      fs::path dest(dest_);
      std::error_code ec;
      fs::path parent = dest.parent_path().empty() ? "." : dest.parent_path();
      fs::create_directories(parent, ec);
      int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return Error{std::strerror(errno)};
      return std::pair{Fd(fd), dest.filename().string()};
    }
    int top = TRY(root());
    auto slash = name.rfind('/');
    std::string dir = slash == std::string::npos ? "" : name.substr(0, slash);
    return std::pair{TRY(open_below(top, dir)), name.substr(slash + 1)};
  }

  Result<void> begin_file(FileHeader header) {
    if (incoming_ || extraction_) return Error{"file frame inside another stream"};
    incoming_.emplace();
    Incoming& in = *incoming_;
    in.path = join_path(shown_, header.name);
    in.header = std::move(header);
    auto placed = place(in.header.name);
    if (!placed) return fail(in.path, placed.error());
    in.dir = std::move(placed->first);
    std::string temp = "." + placed->second + ".pdx-" + std::to_string(::getpid()) + "-" +
                       std::to_string(++files_started_);
    auto file = UnpackFile::create(in.dir.get(), placed->second, temp, in.header.mode,
                                   hiding_.in(in.dir.get()));
    if (!file) return fail(in.path, file.error());
    in.file.emplace(std::move(*file));
    return {};
  }

  Result<void> data(std::string_view bytes) {
    if (extraction_) return feed_extraction(bytes);
    if (!incoming_) return Error{"data frame outside a file"};
    Incoming& in = *incoming_;
    if (in.received + bytes.size() > in.header.size) return Error{"more data than the file's size"};
    if (!in.file) return {};  // failed already: skipped
    in.hash.update(bytes.data(), bytes.size());
    auto written = in.file->write(bytes, static_cast<std::int64_t>(in.received));
    in.received += bytes.size();
    if (!written) {
      in.file.reset();
      return fail(in.path, written.error());
    }
    return {};
  }

  // Zeros not sent: nothing is written (the file is extended at its end, or the next data
  // written past them), so that they stay a hole here too.
  Result<void> hole(const Hole& h) {
    if (!incoming_) return Error{"hole frame outside a file"};
    Incoming& in = *incoming_;
    if (h.length > in.header.size - in.received) return Error{"more data than the file's size"};
    if (!in.file) return {};  // failed already: skipped
    hash_zeros(in.hash, h.length);
    in.received += h.length;
    return {};
  }

  Result<void> end_file(const FileEnd& end) {
    if (!incoming_) return Error{"file end frame outside a file"};
    Incoming in = std::move(*incoming_);
    incoming_.reset();
    if (end.xxh3_128 == kAbandoned || !in.file) return {};  // the sender says why it abandoned it
    if (in.received != in.header.size) return Error{"file end before the file's size"};
    if (hex(in.hash.digest()) != end.xxh3_128)
      return fail(in.path, "checksum differs from the source");
    if (auto extended = in.file->extend_to(static_cast<std::int64_t>(in.header.size)); !extended)
      return fail(in.path, extended.error());
    struct timespec times[2] = {{0, UTIME_OMIT},
                                {in.header.mtime_sec, static_cast<long>(in.header.mtime_nsec)}};
    if (::fchmod(in.file->fd(), in.header.mode) != 0 || ::futimens(in.file->fd(), times) != 0)
      return fail(in.path, std::strerror(errno));
    auto committed = in.file->commit();
    if (!committed) return fail(in.path, committed.error());
    ++summary_.files;
    summary_.bytes += in.header.size;
    return out_.add(FrameType::written, encode(Written{in.header.name, in.header.size}));
  }

  // Made now (private to its owner until set_directories), its mode and mtime set at the end.
  Result<void> directory(const Directory& d) {
    if (incoming_ || extraction_) return Error{"directory frame inside another stream"};
    auto top = root();
    if (!top) return fail(shown_, top.error());
    auto opened = open_below(*top, d.name);
    if (!opened) return fail(join_path(shown_, d.name), opened.error());
    directories_.push_back(d);
    return {};
  }

  // The directories' modes and mtimes, deepest first: after what goes in them, as rsync -a.
  // Each is opened again without following a symlink (one may have been put on the way since).
  void set_directories() {
    std::sort(directories_.begin(), directories_.end(),
              [](const Directory& a, const Directory& b) { return a.name > b.name; });
    for (const Directory& d : directories_) {
      auto opened = open_below(root_.get(), d.name);
      struct timespec times[2] = {{0, UTIME_OMIT}, {d.mtime_sec, static_cast<long>(d.mtime_nsec)}};
      if (!opened)
        fail(join_path(shown_, d.name), opened.error());
      else if (::fchmod(opened->get(), d.mode) != 0 || ::futimens(opened->get(), times) != 0)
        fail(join_path(shown_, d.name), std::strerror(errno));
    }
    directories_.clear();
  }

  // A symlink made under a temporary name beside NAME, then renamed over it: NAME is replaced
  // whole (a symlink or a file there), never written through; a directory there is refused.
  Result<void> symlink(const Symlink& l) {
    if (incoming_ || extraction_) return Error{"symlink frame inside another stream"};
    std::string path = join_path(shown_, l.name);
    auto placed = place(l.name);
    if (!placed) return fail(path, placed.error());
    auto& [dir, leaf] = *placed;
    struct stat st;
    if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
      return fail(path, "Is a directory");
    std::string temp =
        "." + leaf + ".pdx-" + std::to_string(::getpid()) + "-" + std::to_string(++files_started_);
    if (::symlinkat(l.target.c_str(), dir.get(), temp.c_str()) != 0)
      return fail(path, std::strerror(errno));
    struct timespec times[2] = {{0, UTIME_OMIT}, {l.mtime_sec, static_cast<long>(l.mtime_nsec)}};
    ::utimensat(dir.get(), temp.c_str(), times, AT_SYMLINK_NOFOLLOW);  // best effort, as rsync
    if (::renameat(dir.get(), temp.c_str(), dir.get(), leaf.c_str()) != 0) {
      int error = errno;
      ::unlinkat(dir.get(), temp.c_str(), 0);
      return fail(path, std::strerror(error));
    }
    ++summary_.files;
    return out_.add(FrameType::written, encode(Written{l.name, 0}));
  }

  Result<void> begin_archive() {
    if (incoming_ || extraction_) return Error{"archive frame inside another stream"};
    forget_extracted(dest_);  // whatever DEST held is about to change
    TRY(remove_leftovers());
    std::string hidden = join_path(dest_, hidden_name(++files_started_));
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
    Fd source(fds[0]);
    // The archive's data frames go in whole: without this the unpack's reads bring 64 KiB at a
    // time, each a wake-up of both threads.
    widen_pipe(fds[1]);
    extraction_.emplace();
    extraction_->feed = Fd(fds[1]);
    extraction_->hidden = hidden;
    Extraction* x = &*extraction_;
    x->thread = std::thread([x, hidden, source = std::move(source)] {
      UnpackOptions options;
      options.parts = {kStreamPath + std::to_string(source.get())};
      options.directory = hidden;
      options.on_entry_failure = [x](const EntryFailure& failed) { x->failed_entry = failed; };
      x->result = unpack(options);
    });
    return {};
  }

  Result<void> feed_extraction(std::string_view bytes) {
    if (!extraction_ || !extraction_->feed) return {};  // unpack stopped early: the rest is dropped
    if (!write_all(extraction_->feed.get(), bytes.data(), bytes.size(), "pipe"))
      extraction_->feed.reset();  // EPIPE: unpack stopped; its error is in its result
    return {};
  }

  void finish_extraction() {
    extraction_->feed.reset();
    if (extraction_->thread.joinable()) extraction_->thread.join();
  }

  // Nothing of the archive placed: its hidden directory removed.
  void abandon_extraction() {
    finish_extraction();
    remove_hidden(extraction_->hidden);
    extraction_.reset();
  }

  // The archive unpacked whole: its entries moved from the hidden directory into DEST.
  Result<void> end_archive() {
    if (!extraction_) return Error{"archive end frame outside an archive"};
    finish_extraction();
    Result<UnpackStats> result = std::move(extraction_->result);
    std::optional<EntryFailure> failed_entry = std::move(extraction_->failed_entry);
    std::string hidden = extraction_->hidden;
    if (!result) {
      abandon_extraction();
      // An entry that could not be written fails as a pushed file does: REASON (DEST/NAME).
      if (failed_entry) return fail(join_path(shown_, failed_entry->entry), failed_entry->reason);
      std::string error = result.error();
      if (error.starts_with(hidden)) error = shown_ + error.substr(hidden.size());
      return fail_archive(error);
    }
    std::uint64_t failures = summary_.failures;
    Fd from(::open(hidden.c_str(), kDirFlags));
    auto top = root();
    if (!from || !top)
      fail(shown_, top ? std::strerror(errno) : top.error());
    else {
      // What would not go in place is found first: then nothing is moved.
      FailFn named = [this](const std::string& name, std::string reason) {
        fail(join_path(shown_, name), std::move(reason));
      };
      merge_into(from.get(), *top, "", named, false);
      std::optional<std::vector<std::string>> placed;
      if (!set_.empty()) placed = names_below(hidden);
      if (summary_.failures == failures) merge_into(from.get(), *top, "", named, true);
      // A record that cannot be written only costs the next push of this set a resend.
      if (summary_.failures == failures && placed)
        (void)record_extracted(dest_, set_, std::move(*placed));
    }
    abandon_extraction();
    if (summary_.failures == failures) {
      summary_.files += result->files;
      summary_.bytes += result->file_bytes;
    }
    return {};
  }

  // What agents killed while unpacking into DEST left there, removed, and said once in a note.
  Result<void> remove_leftovers() {
    auto top = root();
    if (!top) return {};  // the unpack says why DEST cannot be written
    std::vector<std::string> left = leftovers_in(*top);
    if (left.empty()) return {};
    for (const auto& name : left) remove_hidden(join_path(dest_, name));
    std::string more = left.size() > 1 ? " and " + std::to_string(left.size() - 1) + " more" : "";
    TRY(out_.add(FrameType::note, "removed what an unpack killed before its end left in " + shown_ +
                                      " (" + left.front() + more + ")"));
    return out_.flush();  // said even if the receive fails later
  }

  // unpack's error other than an entry's (end_archive), named after the pipe it read
  // ("/proc/self/fd/N: ..."): it says "archive stream" for the pipe, and names DEST.
  Result<void> fail_archive(std::string error) {
    if (!error.starts_with(kStreamPath)) return fail(shown_, error);
    return fail(shown_, "archive stream" + error.substr(error.find(':')));
  }

  std::string dest_;
  std::string shown_;
  FrameBatch out_;  // the receipts: one write per 64 KiB of them, not one per file
  HidingByFilesystem hiding_;
  std::string set_;  // --set: the archive's, recorded once placed whole
  Fd root_;
  std::optional<Incoming> incoming_;
  std::optional<Extraction> extraction_;
  std::uint64_t files_started_ = 0;
  std::vector<Directory> directories_;  // made or sent: their modes and mtimes set at done
  std::vector<std::pair<Failed, std::uint64_t>> failures_;  // and how many more of its reason
  Summary summary_;
  bool done_ = false;
};

}  // namespace

Result<Summary> agent_receive(const std::string& dest, int in, int out, const std::string& set,
                              FrameReader::ReadAhead ahead) {
  widen_pipe(in);  // sshd's pipe
  FdInput input(in);
  return agent_receive(dest, input, out, set, ahead);
}

Result<Summary> agent_receive(const std::string& dest, FrameInput& in, int out,
                              const std::string& set, FrameReader::ReadAhead ahead) {
  std::error_code ec;
  // unpack changes directory: every path is made absolute first.
  Receiver receiver(fs::absolute(dest, ec).string(), dest, out, set);
  FrameReader reader(in, ahead);
  while (!receiver.done()) {
    auto frame = reader.next();
    if (!frame && frame.error_kind() != ErrorKind::bad_input)
      return Error{"cannot read standard input: " + frame.error()};
    if (!frame) return Error{frame.error(), ErrorKind::bad_input};
    if (!*frame) return Error{"input ended before the push was complete"};
    TRY(receiver.handle(**frame));
  }
  return receiver.summary();
}

}  // namespace pdx
