#include "archive/unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <utility>
#include <variant>

#include "archive/tar_filter.h"
#include "archive/unpack_file.h"
#include "archive/unpack_input.h"
#include "archive/unpack_writers.h"
#include "base/fd.h"
#include "base/umask.h"

namespace pdx {

namespace {

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;

std::string archive_message(struct archive* a) {
  const char* message = archive_error_string(a);
  return message ? message : "unknown error";
}

// Holds the working directory of the caller and returns to it.
class WorkingDirectory {
 public:
  WorkingDirectory() : fd_(::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~WorkingDirectory() {
    if (fd_ >= 0 && ::fchdir(fd_) == 0) ::close(fd_);
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

// The directory the regular files of the current entries go into, held open: found from the
// unpack directory one component at a time with O_NOFOLLOW (a symlink on the way is refused, not
// followed), made where missing, and reused while entries stay in it. Files are created and
// named relative to it, so no path walk per file, and none that a symlink could redirect.
// Used by the reading thread only; a directory handed out stays open while a file queued for
// the writer threads holds it.
class DirectoryCache {
 public:
  // Why a directory could not be opened: errno, and the component it failed at.
  struct Failure {
    int error;
    std::string at;
    bool symlink;
  };

  bool open_root() {
    int fd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    root_ = std::make_shared<UnpackDirectory>(fd);
    return true;
  }
  int root_fd() const { return root_->fd(); }

  // True when open(dir) would not walk.
  bool holds(const std::string& dir) const {
    return dir.empty() || (cached_ && dir == cached_name_);
  }

  // The directory `dir` (relative, "" for the unpack directory), or why not.
  std::variant<std::shared_ptr<UnpackDirectory>, Failure> open(const std::string& dir) {
    if (dir.empty()) return root_;
    if (holds(dir)) return cached_;
    forget();
    Fd current;
    int parent = root_->fd();
    for (std::size_t start = 0; start < dir.size();) {
      std::size_t end = std::min(dir.find('/', start), dir.size());
      std::string part = dir.substr(start, end - start);
      int fd = ::openat(parent, part.c_str(), kDirFlags);
      if (fd < 0 && errno == ENOENT &&
          (::mkdirat(parent, part.c_str(), 0777) == 0 || errno == EEXIST)) {
        fd = ::openat(parent, part.c_str(), kDirFlags);
      }
      if (fd < 0) {
        int error = errno;
        struct stat st;
        bool symlink =
            ::fstatat(parent, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
        return Failure{error, dir.substr(0, end), symlink};
      }
      current = Fd(fd);
      parent = fd;
      start = end + 1;
    }
    cached_ = std::make_shared<UnpackDirectory>(current.release());
    cached_name_ = dir;
    return cached_;
  }

  // Entries written by libarchive may change what names mean, and directories' modes: walk
  // again next time.
  void forget() {
    cached_.reset();
    cached_name_.clear();
    root_->forget_file_gid();
  }

 private:
  static constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  std::shared_ptr<UnpackDirectory> root_;
  std::shared_ptr<UnpackDirectory> cached_;
  std::string cached_name_;
};

// libarchive's view of the stream: the parts, decoded, through TarFilter (which shrinks a pax
// header over libarchive's 1 MiB). Keeps a failure of its own, which names the part.
struct ArchiveInput : TarSource {
  UnpackInput stream;
  TarFilter filter{*this};
  std::optional<Error> error;
  std::function<void()> before_read;  // called before each read, which may wait for input

  explicit ArchiveInput(std::vector<std::string> parts) : stream(std::move(parts)) {}

  Result<std::span<const char>> read() override { return stream.read(); }
  Result<std::uint64_t> seek(std::int64_t offset, int whence) override {
    return stream.seek(offset, whence);
  }
  const std::string& current_part() const override { return stream.current_part(); }

  int open(struct archive* a) {
    archive_read_set_callback_data(a, this);
    archive_read_set_read_callback(a, read_callback);
    if (stream.seekable()) archive_read_set_seek_callback(a, seek_callback);
    return archive_read_open1(a);
  }

  static la_ssize_t read_callback(struct archive* a, void* self, const void** block) {
    auto* in = static_cast<ArchiveInput*>(self);
    if (in->before_read) in->before_read();
    auto data = in->filter.read();
    if (!data) {
      in->error = Error{data.error(), data.error_kind()};
      archive_set_error(a, EIO, "%s", data.error().c_str());
      return -1;
    }
    *block = data->data();
    return static_cast<la_ssize_t>(data->size());
  }

  static la_int64_t seek_callback(struct archive*, void* self, la_int64_t offset, int whence) {
    auto done = static_cast<ArchiveInput*>(self)->filter.seek(offset, whence);
    return done ? static_cast<la_int64_t>(*done) : ARCHIVE_FATAL;
  }
};

// Regular files up to this size are read into memory and written by UnpackWriters' threads;
// larger ones, and those of unknown size, are written by the reading thread as they are read.
constexpr la_int64_t kQueuedFileMax = 1 << 20;
// The memory the files queued for the writer threads may hold.
constexpr std::size_t kQueueBytes = 32 << 20;
// The names of queued files remembered: past this many, unpack waits for the writer threads and
// starts afresh, so that the names of a huge archive are not all kept (a small set measured
// faster, too).
constexpr std::size_t kQueuedNamesMax = 1 << 11;

constexpr int kExtractFlags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SPARSE |
                              ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                              ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS;

/// One unpack run: the reader over the parts, the libarchive handles, the counts.
class Unpacker {
 public:
  explicit Unpacker(const UnpackOptions& options)
      : options_(options),
        input_(options.parts),
        reader_(archive_read_new(), archive_read_free),
        writer_(archive_write_disk_new(), archive_write_free) {}

  Result<UnpackStats> run() {
    TRY(input_.stream.open(options_.set_check));
    // No filters: StreamDecoder decodes gzip, bzip2, xz and zstd, and pdx reads no other
    // compression (libarchive would run lzop or lrzip, or read lzip wrongly). Not format_all:
    // mtree, for one, names files on this machine to read data from.
    archive_read_support_format_tar(reader_.get());
    archive_read_support_format_zip(reader_.get());
    archive_read_support_format_cpio(reader_.get());
    archive_write_disk_set_options(writer_.get(),
                                   kExtractFlags | (root_ ? ARCHIVE_EXTRACT_OWNER : 0));
    archive_write_disk_set_standard_lookup(writer_.get());
    if (input_.open(reader_.get()) != ARCHIVE_OK) return read_error();

    WorkingDirectory caller;
    std::error_code ec;
    std::filesystem::create_directories(options_.directory, ec);
    if (!caller.ok() || ec || ::chdir(options_.directory.c_str()) != 0 || !dirs_.open_root()) {
      return Error{options_.directory + ": cannot unpack here: " +
                   (ec ? ec.message() : std::string(std::strerror(errno)))};
    }
    creation_.umask = process_umask();
    creation_.hiding = hiding_in(dirs_.root_fd());
    creation_.uid = euid_;
    writers_.emplace(std::max(1u, std::thread::hardware_concurrency()), kQueueBytes, creation_);
    // The files read so far are written while the next block is read (or waited for).
    input_.before_read = [this] { writers_->wake(); };
    auto extracted = extract_all();
    auto written = wait_for_writers();
    // Closing applies the deferred directory modes and times by relative name: it must run
    // here, in the directory, on failure too, and after the last file is written.
    bool closed = archive_write_close(writer_.get()) == ARCHIVE_OK;
    if (!extracted) return ended_by(Error{extracted.error(), extracted.error_kind()});
    if (!written) return ended_by(Error{written.error(), written.error_kind()});
    if (!closed) return Error{options_.directory + ": " + archive_message(writer_.get())};
    return stats_;
  }

 private:
  Result<void> extract_all() {
    for (;;) {
      archive_entry* entry;
      int r = archive_read_next_header(reader_.get(), &entry);
      if (r == ARCHIVE_EOF) return read_rest();
      // RETRY: a damaged header, which libarchive would skip to look for the next; GNU tar
      // skips it too, but fails at the end. pdx stops at it.
      if (r < ARCHIVE_WARN || r == ARCHIVE_RETRY) return read_error();
      if (r == ARCHIVE_WARN && options_.on_warning) {
        options_.on_warning(input_.stream.current_part() + ": " + archive_message(reader_.get()));
      }
      TRY(extract(entry));
      last_entry_ = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    }
  }

  // After the archive's end, the rest of a stream that cannot seek (a pipe, a compressed
  // archive) is read to its end, as GNU tar reads its last record: so that what writes into the
  // pipe (pull's host, `curl | pdx unpack -`) is not cut off with EPIPE for the padding that
  // follows the end blocks, and so that a compressed stream's closing check (gzip's CRC32,
  // xz's, zstd's) is read and must hold. Bytes there are not extracted; GNU tar ignores them too.
  Result<void> read_rest() {
    if (input_.stream.seekable()) return {};
    for (;;) {
      auto block = input_.stream.read();
      if (!block) return Error{block.error(), block.error_kind()};
      if (block->empty()) return {};
    }
  }

 private:
  // "PART: entry NAME": where an entry's errors happened.
  std::string at(const std::string& original) const {
    return input_.stream.current_part() + ": entry " + original;
  }

  // An entry that could not be created, written or put in place (`reason`): its Error, the
  // entry kept apart for on_entry_failure.
  Error entry_failed(const std::string& original, const std::string& reason) {
    failed_entry_ = EntryFailure{original, reason};
    return Error{at(original) + ": " + reason};
  }

  // The Error that ends the run, told to on_entry_failure where it is an entry's (the reading
  // thread's, or the first of the writers' when it came from them).
  Error ended_by(const Error& error) {
    std::optional<EntryFailure> entry = failed_entry_;
    if (!entry && writers_) entry = writers_->failed_entry();
    if (entry && options_.on_entry_failure &&
        error.message.find(": entry " + entry->entry + ": ") != std::string::npos &&
        error.message.ends_with(entry->reason))
      options_.on_entry_failure(*entry);
    return error;
  }

  // A read or decode error (ErrorKind::bad_input unless reading failed), named by the part the
  // stream was in, and by the entry whose data was being read (`original`) or the last entry
  // before the failure.
  Error read_error(const std::string& original = {}) {
    if (input_.error) return *input_.error;  // names the part already
    // What libarchive found wrong may be what the decoder had yet to report: a corrupt block
    // decodes into garbage before its check fails.
    if (auto pending = input_.stream.pending_error()) return *pending;
    std::string message = archive_message(reader_.get());
    const std::string& part = input_.stream.current_part();
    std::string where = !original.empty()     ? at(original)
                        : last_entry_.empty() ? part + ": at its start"
                                              : part + ": after entry " + last_entry_;
    // libarchive 3.6 takes up to 1 MiB; TarFilter shrinks a pax header, not a long name (which
    // may come before libarchive has recognised the format).
    if (message == "Special header too large") {
      return Error{where + ": a GNU long-name (or other special) header over 1 MiB, more than " +
                       "libarchive reads: pdx cannot unpack this archive (GNU tar can)",
                   ErrorKind::bad_input};
    }
    if (archive_format(reader_.get()) == 0) {  // no format recognised
      std::string what = input_.stream.position() == 0 ? "empty" : message;
      return Error{part + ": not a tar or zip archive (" + what +
                       "); pdx reads tar, zip and cpio, plain or compressed with gzip, bzip2, "
                       "xz or zstd",
                   ErrorKind::bad_input};
    }
    // libarchive says "Truncated ..." when the data ran out; a zip's end was read first (its
    // central directory), so a zip's bad CRC does not mean that.
    bool ends_early = message.find("runcated") != std::string::npos ||
                      message.find("remature") != std::string::npos;
    return Error{where + ": " + message +
                     (ends_early ? ": the archive ends early; this part is truncated or parts "
                                   "after it are missing"
                                 : ": the archive is corrupt (this part or one before it is "
                                   "damaged, or the parts are out of order)"),
                 ErrorKind::bad_input};
  }

  // What libarchive's SECURE_* flags check too, said in the entry's own words: no device files
  // unless root, and no directory on the way that is a symlink (writing through it could land
  // outside the directory).
  Result<void> check_entry(archive_entry* entry, const std::string& original,
                           const std::string& name) {
    std::size_t last_slash = name.rfind('/');
    std::string parent = last_slash == std::string::npos ? "" : name.substr(0, last_slash);
    for (std::size_t slash = name.find('/'); parent != checked_dir_ && slash != std::string::npos;
         slash = name.find('/', slash + 1)) {
      std::string dir = name.substr(0, slash);
      struct stat st;
      if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        return Error{at(original) + ": refused: " + dir +
                         " is a symlink, and writing through it could leave " + options_.directory,
                     ErrorKind::bad_input};
      }
    }
    checked_dir_ = parent;
    auto type = archive_entry_filetype(entry);
    // libarchive would replace a symlink standing where a directory goes (DEST/sub -> /scratch)
    // with the directory; push refuses it, and so does this.
    if (struct stat st; type == AE_IFDIR && ::lstat(name.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      return Error{at(original) + ": refused: " + name +
                       " is a symlink, and writing through it could leave " + options_.directory,
                   ErrorKind::bad_input};
    if (type == AE_IFLNK || archive_entry_hardlink(entry))
      checked_dir_.assign(1, '/');  // may add a symlink
    if ((type == AE_IFCHR || type == AE_IFBLK) && !root_) {
      return Error{at(original) + " is a device file; refused (" +
                       (euid_ == 0 ? "--no-same-owner" : "only root may unpack device files") + ")",
                   ErrorKind::bad_input};
    }
    return {};
  }

  Result<void> extract(archive_entry* entry) {
    std::string original = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    auto name = safe_entry_name(original, options_.strip_components);
    if (!name)
      return Error{input_.stream.current_part() + ": entry " + name.error(), name.error_kind()};
    if (name->empty()) return {};
    const char* link = archive_entry_hardlink(entry);
    if (archive_entry_filetype(entry) == AE_IFREG && !link) {
      ++stats_.entries;
      if (options_.on_entry) options_.on_entry(*name);
      return write_file(entry, original, *name);
    }
    // Anything else goes through libarchive, which may turn names into symlinks, and needs the
    // files before it in place (a hard link's target, say). A directory needs only its own name
    // and those above it settled: it makes no symlink, and the files being written under it
    // are not in its way.
    if (archive_entry_filetype(entry) != AE_IFDIR || queued_at_or_above(*name)) {
      TRY(wait_for_writers());
    }
    dirs_.forget();
    TRY(check_entry(entry, original, *name));
    archive_entry_set_pathname(entry, name->c_str());
    if (link) {
      auto target = safe_entry_name(link, options_.strip_components);
      if (!target)
        return Error{
            input_.stream.current_part() + ": hard link " + original + " to " + target.error(),
            target.error_kind()};
      if (target->empty()) return {};
      archive_entry_set_hardlink(entry, target->c_str());
    }
    ++stats_.entries;
    if (options_.on_entry) options_.on_entry(*name);
    if (archive_write_header(writer_.get(), entry) < ARCHIVE_WARN) {
      // A system error is a failure to write; else one of libarchive's safety checks refused.
      if (int error = archive_errno(writer_.get()); error > 0) {
        return entry_failed(original, std::string("cannot create: ") + std::strerror(error));
      }
      return Error{at(original) + ": refused: " + archive_message(writer_.get()),
                   ErrorKind::bad_input};
    }
    if (archive_entry_size(entry) > 0 || !archive_entry_size_is_set(entry)) {
      TRY(copy_data(original));
    }
    if (archive_write_finish_entry(writer_.get()) < ARCHIVE_WARN) {
      return Error{at(original) + ": " + archive_message(writer_.get())};
    }
    return {};
  }

  // Waits until the files queued for the writer threads are written.
  Result<void> wait_for_writers() {
    queued_names_.clear();
    return writers_->wait();
  }

  // A regular file, written by pdx itself relative to the held directory: created out of sight
  // (UnpackFile; DIR/.NAME.pdx-PID-N where it needs a temporary name), its data, owner (root
  // only), mode and times set on the open descriptor, then given its name NAME -- a few system
  // calls, where libarchive walks the whole path again per file. A small file is read into
  // memory and handed to the writer threads; a name one of them may still be writing waits for
  // them first, so that the later entry wins, and no directory is made where a file is due.
  Result<void> write_file(archive_entry* entry, const std::string& original,
                          const std::string& name) {
    std::size_t slash = name.rfind('/');
    std::string dir = slash == std::string::npos ? "" : name.substr(0, slash);
    std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    if (queued_names_.size() >= kQueuedNamesMax || queued_names_.contains(name) ||
        (!dirs_.holds(dir) && queued_at_or_above(dir))) {
      TRY(wait_for_writers());
    }
    auto opened = dirs_.open(dir);
    if (auto* failure = std::get_if<DirectoryCache::Failure>(&opened)) {
      if (!failure->symlink) {
        return Error{at(original) + ": cannot make directory " + failure->at + ": " +
                     std::strerror(failure->error)};
      }
      return Error{at(original) + ": refused: " + failure->at +
                       " is a symlink, and writing through it could leave " + options_.directory,
                   ErrorKind::bad_input};
    }
    FileToWrite file = file_to_write(entry, original, name, base);
    file.directory = std::get<std::shared_ptr<UnpackDirectory>>(std::move(opened));
    la_int64_t size = archive_entry_size(entry);
    bool has_data = size > 0 || !archive_entry_size_is_set(entry);
    if (archive_entry_size_is_set(entry) && size <= kQueuedFileMax) {
      std::vector<char> data;
      if (has_data) {
        TRY(read_file_data(data, size, original));
      }
      queued_names_.insert(name);
      count_file(entry);
      return writers_->write(std::move(file), std::move(data));
    }
    auto out = TRY(create_file(file, creation_, failed_entry_));
    if (has_data) {
      TRY(copy_file_data(out, entry, original));
    }
    TRY(finish_file(out, file, creation_, failed_entry_));
    count_file(entry);
    return {};
  }

  void count_file(archive_entry* entry) {
    ++stats_.files;
    stats_.file_bytes += static_cast<std::uint64_t>(archive_entry_size(entry));
  }

  // True if a file queued for the writer threads has the name `path`, or that of a directory
  // above it.
  bool queued_at_or_above(const std::string& path) const {
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      if (queued_names_.contains(path.substr(0, slash))) return true;
    }
    return queued_names_.contains(path);
  }

  // What the entry says of its file, resolved here: owner (root only; names looked up as
  // libarchive does), and no set-id bits for an owner that is not restored.
  FileToWrite file_to_write(archive_entry* entry, const std::string& original,
                            const std::string& name, const std::string& base) {
    FileToWrite file;
    file.base = base;
    file.temp_name = "." + base + ".pdx-" + pid_ + "-" + std::to_string(stats_.entries);
    file.origin = at(original);
    file.entry = original;
    file.name = name;
    file.mode = archive_entry_perm(entry);
    if (root_) {
      file.owner = FileToWrite::Owner{
          static_cast<uid_t>(archive_write_disk_uid(writer_.get(), archive_entry_uname(entry),
                                                    archive_entry_uid(entry))),
          static_cast<gid_t>(archive_write_disk_gid(writer_.get(), archive_entry_gname(entry),
                                                    archive_entry_gid(entry)))};
    } else {  // as libarchive does
      bool mine = options_.ownership == Ownership::mine;
      if (mine || archive_entry_uid(entry) != euid_) file.mode &= ~S_ISUID;
      if (mine || archive_entry_gid(entry) != egid_) file.mode &= ~S_ISGID;
    }
    if (archive_entry_atime_is_set(entry)) {
      file.atime = timespec{archive_entry_atime(entry), archive_entry_atime_nsec(entry)};
    }
    if (archive_entry_mtime_is_set(entry)) {
      file.mtime = timespec{archive_entry_mtime(entry), archive_entry_mtime_nsec(entry)};
    }
    return file;
  }

  // Hands each data block of the current entry to `use` (char pointer, size, offset; an Error
  // from it stops the reading), reporting progress; a read error names the part.
  template <class Use>
  Result<void> for_each_block(const std::string& original, Use use) {
    const void* block;
    size_t size;
    la_int64_t offset;
    int r;
    while ((r = archive_read_data_block(reader_.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      TRY(use(static_cast<const char*>(block), size, offset));
      if (options_.on_progress)
        options_.on_progress(input_.stream.position(), input_.stream.total_size());
    }
    if (r != ARCHIVE_EOF) return read_error(original);
    return {};
  }

  // The entry's data, read into `data`: `size` bytes, or up to the end of the last block, the
  // gaps between blocks zero-filled.
  Result<void> read_file_data(std::vector<char>& data, la_int64_t size,
                              const std::string& original) {
    data.resize(static_cast<std::size_t>(size));
    return for_each_block(original, [&](const char* block, size_t length, la_int64_t offset) {
      auto at = static_cast<std::size_t>(offset);
      if (at + length > data.size()) data.resize(at + length);
      std::memcpy(data.data() + at, block, length);
      return Result<void>{};
    });
  }

  Result<void> copy_data(const std::string& original) {
    return for_each_block(
        original, [&](const char* block, size_t size, la_int64_t offset) -> Result<void> {
          if (archive_write_data_block(writer_.get(), block, size, offset) >= ARCHIVE_OK) return {};
          int error = archive_errno(writer_.get());
          return entry_failed(original,
                              std::string("cannot write: ") +
                                  (error ? std::strerror(error) : archive_message(writer_.get())));
        });
  }

  // Writes the data blocks as they are read (UnpackFile::write: zeros may stay holes); a gap
  // between them, and what is missing up to the entry's size, stay holes.
  Result<void> copy_file_data(UnpackFile& out, archive_entry* entry, const std::string& original) {
    la_int64_t end = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    auto copied = for_each_block(original, [&](const char* block, size_t size, la_int64_t offset) {
      end = std::max(end, offset + static_cast<la_int64_t>(size));
      auto ok = out.write({block, size}, offset);
      return ok ? ok : Result<void>{entry_failed(original, ok.error())};
    });
    if (!copied) return copied;
    if (auto ok = out.extend_to(end); !ok) return entry_failed(original, ok.error());
    return {};
  }

  const UnpackOptions& options_;
  ArchiveInput input_;
  // The directory of the last entry, all of whose components were seen not to be symlinks;
  // reset by an entry that could make a symlink ("/" matches no relative name).
  std::string checked_dir_ = "/";
  std::string last_entry_;  // the name of the last entry extracted, for read errors
  DirectoryCache dirs_;
  uid_t euid_ = ::geteuid();
  gid_t egid_ = ::getegid();
  // Acting as root: restoring owners, set-id bits and device files.
  bool root_ = euid_ == 0 && options_.ownership == Ownership::as_archive_when_root;
  FileCreation creation_;
  std::string pid_ = std::to_string(::getpid());
  ArchivePtr reader_;
  ArchivePtr writer_;
  UnpackStats stats_;
  // The names of the files queued for the writer threads since they were last all written
  // (kQueuedNamesMax at most).
  std::unordered_set<std::string> queued_names_;
  // Last: destroyed (the threads joined) first, while what their files need is still there.
  std::optional<UnpackWriters> writers_;
  std::optional<EntryFailure> failed_entry_;  // the reading thread's last (entry_failed)
};

}  // namespace

Result<std::string> safe_entry_name(const std::string& name, int strip) {
  if (name.empty()) return Error{"with an empty name: refused", ErrorKind::bad_input};
  if (name.front() == '/') return Error{name + ": absolute path refused", ErrorKind::bad_input};
  std::string result;
  int skipped = 0;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    std::string_view part(name.data() + start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return Error{name + ": path with '..' refused", ErrorKind::bad_input};
    if (skipped < strip) {
      ++skipped;
      continue;
    }
    if (!result.empty()) result += '/';
    result += part;
  }
  return result;
}

Result<UnpackStats> unpack(const UnpackOptions& options) {
  return Unpacker(options).run();
}

}  // namespace pdx
