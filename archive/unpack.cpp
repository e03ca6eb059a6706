#include "archive/unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "archive/decoder.h"
#include "archive/part_reader.h"

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

// A file being extracted under a temporary name; removed unless renamed into place.
class PendingFile {
 public:
  ~PendingFile() { discard(); }
  void start(std::string temp, std::string final_name) {
    temp_ = std::move(temp);
    final_ = std::move(final_name);
  }
  Result<void> commit() {
    if (::rename(temp_.c_str(), final_.c_str()) != 0) {
      return Error{final_ + ": cannot rename into place: " + std::strerror(errno)};
    }
    temp_.clear();
    return {};
  }
  void discard() {
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
  }

 private:
  std::string temp_;
  std::string final_;
};

// DIR/NAME -> DIR/.NAME.pdx-PID-N: next to the final name, so the rename stays in one directory.
std::string temporary_name(const std::string& name, std::uint64_t serial) {
  std::filesystem::path path(name);
  std::string temp = "." + path.filename().string() + ".pdx-" + std::to_string(::getpid()) + "-" +
                     std::to_string(serial);
  return (path.parent_path() / temp).string();
}

// libarchive's view of the parts: decoded (gzip, zstd) by StreamDecoder, else raw and seekable.
// Keeps the message of a failure of its own, which names the part.
struct ArchiveInput {
  PartReader& parts;
  StreamDecoder decoder;
  std::vector<char> buffer = std::vector<char>(1 << 20);
  std::string error;

  explicit ArchiveInput(PartReader& p) : parts(p), decoder(p) {}

  int open(struct archive* a) {
    if (auto ok = decoder.open(); !ok) {
      error = ok.error();
      return ARCHIVE_FATAL;
    }
    archive_read_set_callback_data(a, this);
    archive_read_set_read_callback(a, read_callback);
    if (decoder.passthrough() && parts.seekable()) archive_read_set_seek_callback(a, seek_callback);
    return archive_read_open1(a);
  }

  static la_ssize_t read_callback(struct archive* a, void* self, const void** block) {
    auto* in = static_cast<ArchiveInput*>(self);
    *block = in->buffer.data();
    auto n = in->decoder.read(in->buffer.data(), in->buffer.size());
    if (!n) {
      in->error = n.error();
      archive_set_error(a, EIO, "%s", in->error.c_str());
      return -1;
    }
    return static_cast<la_ssize_t>(*n);
  }

  static la_int64_t seek_callback(struct archive*, void* self, la_int64_t offset, int whence) {
    auto done = static_cast<ArchiveInput*>(self)->parts.seek(offset, whence);
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
        parts_(options.parts),
        input_(parts_),
        reader_(archive_read_new(), archive_read_free),
        writer_(archive_write_disk_new(), archive_write_free) {}

  Result<UnpackStats> run() {
    if (auto ok = parts_.check(); !ok) return Error{ok.error()};
    archive_read_support_filter_all(reader_.get());
    // Not format_all: mtree, for one, names files on this machine to read data from.
    archive_read_support_format_tar(reader_.get());
    archive_read_support_format_zip(reader_.get());
    archive_read_support_format_cpio(reader_.get());
    archive_read_support_format_7zip(reader_.get());
    bool root = ::geteuid() == 0;
    archive_write_disk_set_options(writer_.get(),
                                   kExtractFlags | (root ? ARCHIVE_EXTRACT_OWNER : 0));
    archive_write_disk_set_standard_lookup(writer_.get());
    if (input_.open(reader_.get()) != ARCHIVE_OK) return Error{read_error()};

    WorkingDirectory caller;
    std::error_code ec;
    std::filesystem::create_directories(options_.directory, ec);
    if (!caller.ok() || ec || ::chdir(options_.directory.c_str()) != 0) {
      return Error{options_.directory + ": cannot unpack here: " +
                   (ec ? ec.message() : std::string(std::strerror(errno)))};
    }
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
        options_.on_warning(parts_.current_part() + ": " + archive_message(reader_.get()));
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
      return parts_.current_part() + ": not an archive pdx can read (" + message +
             "); pdx reads tar (plain, gzip, bzip2, xz, zstd), zip, cpio and 7z";
    }
    if (parts_.position() == parts_.total_size() && parts_.total_size() > 0) {
      return parts_.current_part() + ": " + message +
             ": the archive ends early; this part is truncated or parts after it are missing";
    }
    return parts_.current_part() + ": " + message +
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
        return Error{parts_.current_part() + ": entry " + original + ": refused: " + dir +
                     " is a symlink, and writing through it could leave " + options_.directory};
      }
    }
    checked_dir_ = parent;
    auto type = archive_entry_filetype(entry);
    if (type == AE_IFLNK || archive_entry_hardlink(entry)) checked_dir_ = "/";  // may add a symlink
    if ((type == AE_IFCHR || type == AE_IFBLK) && ::geteuid() != 0) {
      return Error{parts_.current_part() + ": entry " + original +
                   " is a device file; refused (only root may unpack device files)"};
    }
    return {};
  }

  Result<void> extract(archive_entry* entry) {
    std::string original = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    auto name = safe_entry_name(original, options_.strip_components);
    if (!name) return Error{parts_.current_part() + ": entry " + name.error()};
    if (name->empty()) return {};
    if (auto ok = check_entry(entry, original, *name); !ok) return ok;
    archive_entry_set_pathname(entry, name->c_str());
    if (const char* link = archive_entry_hardlink(entry)) {
      auto target = safe_entry_name(link, options_.strip_components);
      if (!target)
        return Error{parts_.current_part() + ": hard link " + original + " to " + target.error()};
      if (target->empty()) return {};
      archive_entry_set_hardlink(entry, target->c_str());
    }
    ++stats_.entries;
    if (options_.on_entry) options_.on_entry(*name);
    bool via_temp = archive_entry_filetype(entry) == AE_IFREG && !archive_entry_hardlink(entry);
    PendingFile pending;
    if (via_temp) {
      std::string temp = temporary_name(*name, stats_.entries);
      pending.start(temp, *name);
      archive_entry_set_pathname(entry, temp.c_str());
    }
    if (archive_write_header(writer_.get(), entry) < ARCHIVE_WARN) {
      return Error{parts_.current_part() + ": entry " + original +
                   ": refused: " + archive_message(writer_.get())};
    }
    if (archive_entry_size(entry) > 0 || !archive_entry_size_is_set(entry)) {
      if (auto ok = copy_data(original); !ok) return ok;
    }
    if (archive_write_finish_entry(writer_.get()) < ARCHIVE_WARN) {
      return Error{original + ": " + archive_message(writer_.get())};
    }
    if (!via_temp) return {};
    ++stats_.files;
    stats_.file_bytes += static_cast<std::uint64_t>(archive_entry_size(entry));
    return pending.commit();
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
      if (options_.on_progress) options_.on_progress(parts_.position(), parts_.total_size());
    }
    if (r != ARCHIVE_EOF) return Error{read_error()};
    return {};
  }

  const UnpackOptions& options_;
  PartReader parts_;
  ArchiveInput input_;
  // The directory of the last entry, all of whose components were seen not to be symlinks;
  // reset by an entry that could make a symlink ("/" matches no relative name).
  std::string checked_dir_ = "/";
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
