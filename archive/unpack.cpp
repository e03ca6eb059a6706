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
#include <utility>
#include <variant>

#include "archive/unpack_file.h"
#include "archive/unpack_input.h"

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

// An open descriptor, closed when dropped.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// The directory the regular files of the current entries go into, held open: found from the
// unpack directory one component at a time with O_NOFOLLOW (a symlink on the way is refused, not
// followed), made where missing, and reused while entries stay in it. Files are created and
// named relative to it, so no path walk per file, and none that a symlink could redirect.
class DirectoryCache {
 public:
  // An open directory, and the group of the files created in it, once one was (it depends on
  // the directory's set-group-ID bit and on the filesystem's grpid mount option).
  struct Directory {
    Fd fd;
    std::optional<gid_t> file_gid;
  };
  // Why a directory could not be opened: errno, and the component it failed at.
  struct Failure {
    int error;
    std::string at;
    bool symlink;
  };

  bool open_root() {
    root_.fd = Fd(::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return root_.fd.get() >= 0;
  }
  int root_fd() const { return root_.fd.get(); }

  // The directory `dir` (relative, "" for the unpack directory), or why not.
  std::variant<Directory*, Failure> open(const std::string& dir) {
    if (dir.empty()) return &root_;
    if (cached_.fd.get() >= 0 && dir == cached_name_) return &cached_;
    forget();
    Fd current;
    int parent = root_.fd.get();
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
    cached_.fd = std::move(current);
    cached_name_ = dir;
    return &cached_;
  }

  // Entries written by libarchive may change what names mean, and directories' modes: walk
  // again next time.
  void forget() {
    cached_ = Directory{};
    cached_name_.clear();
    root_.file_gid.reset();
  }

 private:
  static constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  Directory root_;
  Directory cached_;
  std::string cached_name_;
};

// libarchive's view of the stream. Keeps the message of a failure of its own, which names the
// part.
struct ArchiveInput {
  UnpackInput stream;
  std::string error;

  explicit ArchiveInput(std::vector<std::string> parts) : stream(std::move(parts)) {}

  int open(struct archive* a) {
    archive_read_set_callback_data(a, this);
    archive_read_set_read_callback(a, read_callback);
    if (stream.seekable()) archive_read_set_seek_callback(a, seek_callback);
    return archive_read_open1(a);
  }

  static la_ssize_t read_callback(struct archive* a, void* self, const void** block) {
    auto* in = static_cast<ArchiveInput*>(self);
    auto data = in->stream.read();
    if (!data) {
      in->error = data.error();
      archive_set_error(a, EIO, "%s", in->error.c_str());
      return -1;
    }
    *block = data->data();
    return static_cast<la_ssize_t>(data->size());
  }

  static la_int64_t seek_callback(struct archive*, void* self, la_int64_t offset, int whence) {
    auto done = static_cast<ArchiveInput*>(self)->stream.seek(offset, whence);
    return done ? static_cast<la_int64_t>(*done) : ARCHIVE_FATAL;
  }
};

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
    if (auto ok = input_.stream.open(); !ok) return Error{ok.error()};
    archive_read_support_filter_all(reader_.get());
    // Not format_all: mtree, for one, names files on this machine to read data from.
    archive_read_support_format_tar(reader_.get());
    archive_read_support_format_zip(reader_.get());
    archive_read_support_format_cpio(reader_.get());
    archive_read_support_format_7zip(reader_.get());
    archive_write_disk_set_options(writer_.get(),
                                   kExtractFlags | (root_ ? ARCHIVE_EXTRACT_OWNER : 0));
    archive_write_disk_set_standard_lookup(writer_.get());
    if (input_.open(reader_.get()) != ARCHIVE_OK) return Error{read_error()};

    WorkingDirectory caller;
    std::error_code ec;
    std::filesystem::create_directories(options_.directory, ec);
    if (!caller.ok() || ec || ::chdir(options_.directory.c_str()) != 0 || !dirs_.open_root()) {
      return Error{options_.directory + ": cannot unpack here: " +
                   (ec ? ec.message() : std::string(std::strerror(errno)))};
    }
    umask_ = ::umask(0);
    ::umask(umask_);
    hiding_ = hiding_in(dirs_.root_fd());
    auto extracted = extract_all();
    // Closing applies the deferred directory modes and times by relative name: it must run
    // here, in the directory, on failure too.
    if (archive_write_close(writer_.get()) != ARCHIVE_OK && extracted) {
      return Error{options_.directory + ": " + archive_message(writer_.get())};
    }
    if (!extracted) return Error{extracted.error()};
    return stats_;
  }

 private:
  Result<void> extract_all() {
    for (;;) {
      archive_entry* entry;
      int r = archive_read_next_header(reader_.get(), &entry);
      if (r == ARCHIVE_EOF) return {};
      if (r < ARCHIVE_WARN) return Error{read_error()};
      if (r == ARCHIVE_WARN && options_.on_warning) {
        options_.on_warning(input_.stream.current_part() + ": " + archive_message(reader_.get()));
      }
      if (auto ok = extract(entry); !ok) return ok;
    }
  }

 private:
  // A read or decode error, named by the part the stream was in.
  std::string read_error() {
    if (!input_.error.empty()) return input_.error;  // names the part already
    std::string message = archive_message(reader_.get());
    if (archive_format(reader_.get()) == 0) {  // no format recognised
      return input_.stream.current_part() + ": not an archive pdx can read (" + message +
             "); pdx reads tar (plain, gzip, bzip2, xz, zstd), zip, cpio and 7z";
    }
    if (input_.stream.position() == input_.stream.total_size() && input_.stream.total_size() > 0) {
      return input_.stream.current_part() + ": " + message +
             ": the archive ends early; this part is truncated or parts after it are missing";
    }
    return input_.stream.current_part() + ": " + message +
           ": this part or one before it is corrupt, or the parts are out of order";
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
        return Error{input_.stream.current_part() + ": entry " + original + ": refused: " + dir +
                     " is a symlink, and writing through it could leave " + options_.directory};
      }
    }
    checked_dir_ = parent;
    auto type = archive_entry_filetype(entry);
    if (type == AE_IFLNK || archive_entry_hardlink(entry))
      checked_dir_.assign(1, '/');  // may add a symlink
    if ((type == AE_IFCHR || type == AE_IFBLK) && !root_) {
      return Error{input_.stream.current_part() + ": entry " + original +
                   " is a device file; refused (only root may unpack device files)"};
    }
    return {};
  }

  Result<void> extract(archive_entry* entry) {
    std::string original = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    auto name = safe_entry_name(original, options_.strip_components);
    if (!name) return Error{input_.stream.current_part() + ": entry " + name.error()};
    if (name->empty()) return {};
    const char* link = archive_entry_hardlink(entry);
    if (archive_entry_filetype(entry) == AE_IFREG && !link) {
      ++stats_.entries;
      if (options_.on_entry) options_.on_entry(*name);
      return write_file(entry, original, *name);
    }
    // Anything else goes through libarchive, which may turn names into symlinks.
    dirs_.forget();
    if (auto ok = check_entry(entry, original, *name); !ok) return ok;
    archive_entry_set_pathname(entry, name->c_str());
    if (link) {
      auto target = safe_entry_name(link, options_.strip_components);
      if (!target)
        return Error{input_.stream.current_part() + ": hard link " + original + " to " +
                     target.error()};
      if (target->empty()) return {};
      archive_entry_set_hardlink(entry, target->c_str());
    }
    ++stats_.entries;
    if (options_.on_entry) options_.on_entry(*name);
    if (archive_write_header(writer_.get(), entry) < ARCHIVE_WARN) {
      return Error{input_.stream.current_part() + ": entry " + original +
                   ": refused: " + archive_message(writer_.get())};
    }
    if (archive_entry_size(entry) > 0 || !archive_entry_size_is_set(entry)) {
      if (auto ok = copy_data(original); !ok) return ok;
    }
    if (archive_write_finish_entry(writer_.get()) < ARCHIVE_WARN) {
      return Error{original + ": " + archive_message(writer_.get())};
    }
    return {};
  }

  // A regular file, written by pdx itself relative to the held directory: created out of sight
  // (UnpackFile; DIR/.NAME.pdx-PID-N where it needs a temporary name), its data, owner (root
  // only), mode and times set on the open descriptor, then given its name NAME -- a few system
  // calls, where libarchive walks the whole path again per file.
  Result<void> write_file(archive_entry* entry, const std::string& original,
                          const std::string& name) {
    std::size_t slash = name.rfind('/');
    std::string dir = slash == std::string::npos ? "" : name.substr(0, slash);
    std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    auto opened = dirs_.open(dir);
    if (auto* failure = std::get_if<DirectoryCache::Failure>(&opened)) {
      std::string why = failure->symlink ? " is a symlink, and writing through it could leave " +
                                               options_.directory
                                         : ": " + std::string(std::strerror(failure->error));
      return Error{input_.stream.current_part() + ": entry " + original +
                   ": refused: " + failure->at + why};
    }
    DirectoryCache::Directory& directory = *std::get<DirectoryCache::Directory*>(opened);
    mode_t mode = archive_entry_perm(entry);
    if (!root_) {  // as libarchive does: no set-id bits for an owner that was not restored
      if (archive_entry_uid(entry) != euid_) mode &= ~S_ISUID;
      if (archive_entry_gid(entry) != egid_) mode &= ~S_ISGID;
    }
    auto file = UnpackFile::create(
        directory.fd.get(), base,
        "." + base + ".pdx-" + pid_ + "-" + std::to_string(stats_.entries), mode & 0777, hiding_);
    if (!file) return Error{original + ": cannot create: " + file.error()};
    if (archive_entry_size(entry) > 0 || !archive_entry_size_is_set(entry)) {
      if (auto ok = copy_file_data(file->fd(), entry, original); !ok) return ok;
    }
    set_metadata(file->fd(), entry, mode, directory);
    if (auto ok = file->commit(); !ok) return Error{name + ": " + ok.error()};
    ++stats_.files;
    stats_.file_bytes += static_cast<std::uint64_t>(archive_entry_size(entry));
    return {};
  }
  Result<void> copy_data(const std::string& name) {
    const void* block;
    size_t size;
    la_int64_t offset;
    int r;
    while ((r = archive_read_data_block(reader_.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      if (archive_write_data_block(writer_.get(), block, size, offset) < ARCHIVE_OK) {
        int error = archive_errno(writer_.get());
        return Error{name + ": cannot write: " +
                     (error ? std::strerror(error) : archive_message(writer_.get()))};
      }
      if (options_.on_progress)
        options_.on_progress(input_.stream.position(), input_.stream.total_size());
    }
    if (r != ARCHIVE_EOF) return Error{read_error()};
    return {};
  }

  // Writes the data blocks at their offsets; a gap between them, a run of zeros filling a whole
  // aligned chunk, and what is missing up to the entry's size stay holes (so a sparse file stays
  // sparse, from zip too, as ARCHIVE_EXTRACT_SPARSE does).
  Result<void> copy_file_data(int fd, archive_entry* entry, const std::string& name) {
    constexpr la_int64_t kChunk = 4096;
    auto zeros = [](const char* p, size_t n) {
      return p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0;
    };
    const void* block;
    size_t size;
    la_int64_t offset;
    la_int64_t position = 0;  // of the descriptor
    la_int64_t end = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    int r;
    while ((r = archive_read_data_block(reader_.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      const char* data = static_cast<const char*>(block);
      end = std::max(end, offset + static_cast<la_int64_t>(size));
      while (size > 0) {
        // A run of whole chunks that are not all zeros, or one that is.
        size_t run = 0;
        for (size_t next; run < size; run += next) {
          next = std::min(size - run, static_cast<size_t>(kChunk - (offset + run) % kChunk));
          if (zeros(data + run, next)) break;
        }
        if (run == 0)
          run = std::min(size, static_cast<size_t>(kChunk - offset % kChunk));
        else {
          if (offset != position && ::lseek(fd, offset, SEEK_SET) < 0) return write_error(name);
          for (size_t done = 0; done < run;) {
            ssize_t n = ::write(fd, data + done, run - done);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return write_error(name);
            done += static_cast<size_t>(n);
          }
          position = offset + static_cast<la_int64_t>(run);
        }
        data += run;
        offset += static_cast<la_int64_t>(run);
        size -= run;
      }
      if (options_.on_progress)
        options_.on_progress(input_.stream.position(), input_.stream.total_size());
    }
    if (r != ARCHIVE_EOF) return Error{read_error()};
    if (end > position && ::ftruncate(fd, end) != 0) return write_error(name);
    return {};
  }

  static Error write_error(const std::string& name) {
    return Error{name + ": cannot write: " + std::strerror(errno)};
  }

  // Owner (root only), mode and times, on the open file in `directory`, each only where
  // creating the file did not set it already. Best effort, as libarchive does: a failure is no
  // error, but set-id bits are kept only for an owner that was set.
  void set_metadata(int fd, archive_entry* entry, mode_t mode,
                    DirectoryCache::Directory& directory) {
    if (root_) {
      auto uid = static_cast<uid_t>(archive_write_disk_uid(
          writer_.get(), archive_entry_uname(entry), archive_entry_uid(entry)));
      auto gid = static_cast<gid_t>(archive_write_disk_gid(
          writer_.get(), archive_entry_gname(entry), archive_entry_gid(entry)));
      struct stat st;
      if (!directory.file_gid && ::fstat(fd, &st) == 0) directory.file_gid = st.st_gid;
      bool owned = uid == euid_ && directory.file_gid == gid;  // as created
      if (!owned && ::fchown(fd, uid, gid) != 0) {
        mode &= ~(S_ISUID | S_ISGID);
      }
    }
    if ((mode & ~(0777 & ~umask_)) != 0) ::fchmod(fd, mode);  // else created with it already
    bool atime = archive_entry_atime_is_set(entry);
    bool mtime = archive_entry_mtime_is_set(entry);
    if (!atime && !mtime) return;
    struct timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    if (atime) times[0] = {archive_entry_atime(entry), archive_entry_atime_nsec(entry)};
    if (mtime) times[1] = {archive_entry_mtime(entry), archive_entry_mtime_nsec(entry)};
    ::futimens(fd, times);
  }

  const UnpackOptions& options_;
  ArchiveInput input_;
  // The directory of the last entry, all of whose components were seen not to be symlinks;
  // reset by an entry that could make a symlink ("/" matches no relative name).
  std::string checked_dir_ = "/";
  DirectoryCache dirs_;
  uid_t euid_ = ::geteuid();
  gid_t egid_ = ::getegid();
  bool root_ = euid_ == 0;
  mode_t umask_ = 022;
  Hiding hiding_ = Hiding::temp_name;
  std::string pid_ = std::to_string(::getpid());
  ArchivePtr reader_;
  ArchivePtr writer_;
  UnpackStats stats_;
};

}  // namespace

Result<std::string> safe_entry_name(const std::string& name, int strip) {
  if (name.empty()) return Error{"with an empty name: refused"};
  if (name.front() == '/') return Error{name + ": absolute path refused"};
  std::string result;
  int skipped = 0;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    std::string_view part(name.data() + start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return Error{name + ": path with '..' refused"};
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
