#include "archive/pack.h"

#include "archive/compressor.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "archive/part_name.h"

namespace pdx {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kOutputBuffer = 1 << 20;
constexpr std::uint64_t kTarBlock = 512;
// Per entry: its header, a pax extended header for long names or big numbers, and padding.
constexpr std::uint64_t kTarEntryOverhead = 3 * kTarBlock;

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;
using EntryPtr = std::unique_ptr<archive_entry, void (*)(archive_entry*)>;
using ResolverPtr =
    std::unique_ptr<archive_entry_linkresolver, void (*)(archive_entry_linkresolver*)>;

// Buffers libarchive's small writes into large ones for the sink (the write callback's client).
struct OutputStream {
  ByteSink& sink;
  std::vector<char> buffer;
  std::uint64_t written = 0;
  std::string error;

  bool flush() {
    if (buffer.empty()) return true;
    auto ok = sink.write(buffer.data(), buffer.size());
    if (!ok) error = ok.error();
    buffer.clear();
    return ok.ok();
  }

  static la_ssize_t write_callback(struct archive* a, void* self, const void* data, size_t size) {
    auto* out = static_cast<OutputStream*>(self);
    const char* p = static_cast<const char*>(data);
    out->written += size;
    bool ok = true;
    if (out->buffer.empty() && size >= kOutputBuffer) {  // large enough: no copy
      auto written = out->sink.write(p, size);
      if (!written) out->error = written.error();
      ok = written.ok();
    } else {
      out->buffer.insert(out->buffer.end(), p, p + size);
      if (out->buffer.size() >= kOutputBuffer) ok = out->flush();
    }
    if (!ok) {
      archive_set_error(a, EIO, "%s", out->error.c_str());
      return -1;
    }
    return static_cast<la_ssize_t>(size);
  }
};

// The name a source is stored under, as tar stores it: "/abs/dir" -> "abs/dir", "../x" -> "x".
struct StoredName {
  std::string opened;   // the path as walked
  std::string stored;   // its name in the archive ("" for "/")
  std::string removed;  // the prefix dropped, for the warning
};

StoredName stored_name(const std::string& source) {
  std::string opened = fs::path(source).lexically_normal().string();
  while (opened.size() > 1 && opened.back() == '/') opened.pop_back();
  std::string stored = opened;
  std::string removed;
  while (!stored.empty() && stored.front() == '/') {
    removed = "/";
    stored.erase(0, 1);
  }
  while (stored == ".." || stored.rfind("../", 0) == 0) {
    removed = "../";
    stored.erase(0, stored == ".." ? 2 : 3);
  }
  return {opened, stored, removed};
}

// Closes the descriptor it holds.
struct FileDescriptor {
  int fd = -1;
  FileDescriptor() = default;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// errno's reason, and what to do about it.
Error read_error(const std::string& path) {
  int error = errno;
  std::string what = path + ": cannot read: " + std::strerror(error);
  if (error == EACCES || error == EPERM)
    return Error{what + "; fix its permissions or leave it out"};
  if (error == ENAMETOOLONG) {
    return Error{what + " (" + std::to_string(path.size()) + " bytes; the system takes " +
                 std::to_string(PATH_MAX) + " at most); pack it from a directory nearer to it"};
  }
  return Error{what};
}

// The names in a directory, sorted, without "." and "..".
Result<std::vector<std::string>> directory_entries(const std::string& path) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), ::closedir);
  if (!dir) return read_error(path);
  std::vector<std::string> names;
  while (const dirent* d = ::readdir(dir.get())) {
    std::string_view name = d->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string archive_message(struct archive* a) {
  const char* message = archive_error_string(a);
  return message ? message : "unknown error";
}

bool own_compressor(Format format) {
  return format == Format::tar_gz || format == Format::tar_bz2 || format == Format::tar_zst;
}

// The libarchive filter for xz; gzip, bzip2 and zstd are compressed by compressing_sink()
// (archive/compressor.h says why).
Result<void> set_filter(struct archive* a, Format format) {
  if (format == Format::tar_xz && archive_write_add_filter_xz(a) != ARCHIVE_OK) {
    return Error{"cannot compress: " + archive_message(a)};
  }
  return {};
}

Result<void> set_options(struct archive* a, const PackOptions& options) {
  bool zip = options.format == Format::zip;
  if (zip) {
    if (archive_write_set_format_zip(a) != ARCHIVE_OK) return Error{archive_message(a)};
  } else if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK) {
    return Error{archive_message(a)};
  }
  TRY(set_filter(a, options.format));
  if (options.level && !own_compressor(options.format)) {
    std::string level = std::to_string(*options.level);
    int r = zip ? archive_write_set_format_option(a, "zip", "compression-level", level.c_str())
                : archive_write_set_filter_option(a, nullptr, "compression-level", level.c_str());
    if (r != ARCHIVE_OK) {
      return Error{"--level " + level + " is not a level " +
                   std::string(format_name(options.format)) + " has: " + archive_message(a)};
    }
  }
  if (options.threads > 1 && options.format == Format::tar_xz) {
    std::string threads = std::to_string(options.threads);
    if (archive_write_set_filter_option(a, nullptr, "threads", threads.c_str()) != ARCHIVE_OK) {
      return Error{"cannot compress with " + threads + " threads: " + archive_message(a)};
    }
  }
  // Compressed streams end where the data ends; tar itself keeps tar's 10240-byte records.
  if (options.format == Format::tar_xz || options.format == Format::zip) {
    archive_write_set_bytes_in_last_block(a, 1);
  }
  return {};
}

/// One pack run: the libarchive handles and what has been counted so far.
class Packer {
 public:
  Packer(const PackOptions& options, ByteSink& sink, std::unique_ptr<ByteSink> compressor)
      : options_(options),
        sink_(sink),
        compressor_(std::move(compressor)),
        out_{compressor_ ? *compressor_ : sink, {}, 0, {}},
        writer_(archive_write_new(), archive_write_free),
        disk_(archive_read_disk_new(), archive_read_free),
        resolver_(archive_entry_linkresolver_new(), archive_entry_linkresolver_free) {}

  Result<PackStats> run() {
    TRY(set_options(writer_.get(), options_));
    if (!options_.output.empty() && options_.output != "-") {
      fs::path output(options_.output);
      output_name_ = output.filename().string();
      ::stat(output.has_parent_path() ? output.parent_path().c_str() : ".", &output_dir_);
    }
    archive_entry_linkresolver_set_strategy(resolver_.get(), archive_format(writer_.get()));
    archive_read_disk_set_standard_lookup(disk_.get());
    out_.buffer.reserve(kOutputBuffer);
    if (archive_write_open(writer_.get(), &out_, nullptr, OutputStream::write_callback, nullptr) !=
        ARCHIVE_OK) {
      return Error{write_error()};
    }
    for (std::size_t i = 0; i < options_.sources.size(); ++i) {
      if (options_.names.empty())
        TRY(pack_source(options_.sources[i]));
      else
        TRY(pack_path(options_.sources[i], options_.names[i]));
    }
    if (archive_write_close(writer_.get()) != ARCHIVE_OK || !out_.flush()) {
      return Error{write_error()};
    }
    TRY(out_.sink.finish());
    stats_.bytes_out = sink_.written();
    return stats_;
  }

 private:
  std::string write_error() {
    return out_.error.empty() ? "cannot write archive: " + archive_message(writer_.get())
                              : out_.error;
  }

  void warn(const std::string& message) {
    if (options_.on_warning) options_.on_warning(message);
  }

  // What cannot be read: the Error that ends packing, or said to on_unreadable and left out.
  Result<void> unreadable(Error error) {
    if (!options_.on_unreadable) return error;
    options_.on_unreadable(error.message);
    ++stats_.unreadable;
    return {};
  }

  Result<void> pack_source(const std::string& source) {
    StoredName name = stored_name(source);
    if (!name.removed.empty()) {
      warn("removing leading '" + name.removed + "' from member names of " + source);
    }
    return pack_path(name.opened, name.stored);
  }

  // Packs path under the name stored, then (for a directory) its entries in name order, each
  // directory's entries right after it, as GNU tar does -- its extraction sets a directory's
  // mtime once it has passed the directory's entries. A directory that cannot be listed is not
  // stored either, as with GNU tar.
  Result<void> pack_path(const std::string& path, const std::string& stored) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return unreadable(read_error(path));
    FileDescriptor file;
    if (S_ISREG(st.st_mode)) {
      file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (file.fd < 0) return unreadable(read_error(path));
    }
    std::vector<std::string> children;
    if (S_ISDIR(st.st_mode)) {
      auto listed = directory_entries(path);
      if (!listed) return unreadable(Error{listed.error()});
      children = std::move(*listed);
    }
    if (!stored.empty()) {  // "" is the root of "/" itself
      // As GNU tar without --xattrs --acls: no extended attributes, ACLs or file flags. Holes
      // are looked for (SEEK_HOLE, six lseeks) only where the file has fewer blocks than its
      // size needs, as GNU tar tells a sparse file.
      bool dense = st.st_blocks * 512 >= st.st_size;
      archive_read_disk_set_behavior(
          disk_.get(), ARCHIVE_READDISK_NO_XATTR | ARCHIVE_READDISK_NO_ACL |
                           ARCHIVE_READDISK_NO_FFLAGS | (dense ? ARCHIVE_READDISK_NO_SPARSE : 0));
      EntryPtr entry(archive_entry_new(), archive_entry_free);
      archive_entry_copy_sourcepath(entry.get(), path.c_str());
      archive_entry_copy_pathname(entry.get(),
                                  (options_.rename ? options_.rename(stored) : stored).c_str());
      if (archive_read_disk_entry_from_file(disk_.get(), entry.get(), file.fd, &st) <
          ARCHIVE_WARN) {
        return unreadable(Error{path + ": cannot read: " + archive_message(disk_.get())});
      }
      TRY(pack_entry(entry.get(), path, file.fd, st));
    }
    bool output_dir = st.st_dev == output_dir_.st_dev && st.st_ino == output_dir_.st_ino;
    for (const auto& child : children) {
      if (output_dir && is_output(child)) {
        warn(path + "/" + child + ": is the archive being written; not packed");
        continue;
      }
      std::string child_stored = stored.empty() ? child : stored + "/" + child;
      TRY(pack_path(path == "/" ? "/" + child : path + "/" + child, child_stored));
    }
    return {};
  }

  // Whether a name in the output's directory is the output, one of its parts, their set file,
  // or the temporary file one of those is written under (.NAME.pdx-XXXXXX): packing those would
  // pack the archive into itself.
  bool is_output(const std::string& name) const {
    const std::string& out = output_name_;
    const std::string set = PartNaming(out, 1).set_file();
    auto starts = [&name](const std::string& prefix) { return name.rfind(prefix, 0) == 0; };
    return name == out || name == set || starts(out + ".part-") || starts("." + out + ".") ||
           starts("." + set + ".");
  }

  Result<void> pack_entry(archive_entry* entry, const std::string& path, int fd,
                          const struct stat& before) {
    archive_entry* spare = nullptr;
    archive_entry_linkify(resolver_.get(), &entry, &spare);
    int r = archive_write_header(writer_.get(), entry);
    if (r == ARCHIVE_WARN) {
      warn(path + ": " + archive_message(writer_.get()));
    } else if (r == ARCHIVE_FAILED) {
      warn(path + ": not stored: " + archive_message(writer_.get()));
      ++stats_.incomplete;
      return {};
    } else if (r != ARCHIVE_OK) {
      return Error{write_error()};
    }
    if (options_.on_entry) options_.on_entry(archive_entry_pathname(entry));
    if (fd < 0 || archive_entry_hardlink(entry)) return {};  // no data, or stored already
    ++stats_.files;
    bool whole = true;
    if (archive_entry_size(entry) > 0) whole = TRY(copy_data(entry, path, fd));
    if (!whole || changed(fd, before)) {
      warn(path + ": file changed as we read it");
      ++stats_.incomplete;
    }
    return {};
  }

  // Copies a file's data. The holes of the sparse map libarchive found (SEEK_HOLE) are
  // written as zeros without reading them; for a sparse entry the pax writer drops what falls
  // in a hole (as with bsdtar), and zip compresses them to next to nothing. Whether the file
  // held exactly the entry's size.
  Result<bool> copy_data(archive_entry* entry, const std::string& path, int fd) {
    const std::int64_t size = archive_entry_size(entry);
    std::vector<std::pair<la_int64_t, la_int64_t>> regions;  // (offset, length) of data
    if (archive_entry_sparse_reset(entry) == 0) regions.emplace_back(0, size);
    la_int64_t region_offset, region_length;
    while (archive_entry_sparse_next(entry, &region_offset, &region_length) == ARCHIVE_OK) {
      regions.emplace_back(region_offset, region_length);
    }
    std::int64_t done = 0;
    bool shrank = false;
    for (auto [offset, length] : regions) {
      TRY(write_zeros(offset - done));
      auto copied = TRY(copy_bytes(fd, offset, length, path));
      done = offset + copied;
      shrank = copied < length;
      if (shrank) break;  // libarchive pads the entry with zeros
    }
    if (!shrank) {
      TRY(write_zeros(size - done));  // a hole at the end
      done = size;
    }
    char more;
    return done == size && ::pread(fd, &more, 1, size) <= 0;
  }

  // Whether the file read from `fd` is other than it was before (its size, or its mtime or
  // ctime to the nanosecond, as GNU tar tells): rewritten in place at the same size, its member
  // may hold old and new bytes.
  static bool changed(int fd, const struct stat& before) {
    struct stat after;
    if (::fstat(fd, &after) != 0) return true;
    auto same = [](const timespec& a, const timespec& b) {
      return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
    };
    return after.st_size != before.st_size || !same(after.st_mtim, before.st_mtim) ||
           !same(after.st_ctim, before.st_ctim);
  }

  // Copies up to length bytes from offset; fewer when the file ends first.
  Result<std::int64_t> copy_bytes(int fd, std::int64_t offset, std::int64_t length,
                                  const std::string& path) {
    std::int64_t copied = 0;
    while (copied < length) {
      auto want = static_cast<std::size_t>(std::min<std::int64_t>(length - copied, data_.size()));
      ssize_t n = ::pread(fd, data_.data(), want, offset + copied);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        TRY(unreadable(read_error(path)));
        break;  // the entry is padded with zeros
      }
      if (n == 0) break;
      TRY(write_data(data_.data(), static_cast<std::size_t>(n)));
      copied += n;
      stats_.file_bytes += static_cast<std::uint64_t>(n);
      if (options_.on_progress) options_.on_progress(stats_.file_bytes, sink_.written());
    }
    return copied;
  }

  Result<void> write_zeros(std::int64_t length) {
    static const std::vector<char> zeros(1 << 20, 0);
    while (length > 0) {
      auto n = static_cast<std::size_t>(std::min<std::int64_t>(length, zeros.size()));
      TRY(write_data(zeros.data(), n));
      length -= static_cast<std::int64_t>(n);
      stats_.file_bytes += n;
    }
    return {};
  }

  Result<std::size_t> write_data(const void* data, std::size_t size) {
    la_ssize_t n = archive_write_data(writer_.get(), data, size);
    if (n < 0) return Error{write_error()};
    return static_cast<std::size_t>(n);
  }

  const PackOptions& options_;
  std::vector<char> data_ = std::vector<char>(1 << 20);
  ByteSink& sink_;
  std::unique_ptr<ByteSink> compressor_;  // in front of sink_ for gzip, bzip2 and zstd
  std::string output_name_;               // the output's file name, if a file
  struct stat output_dir_ = {};           // and its directory
  OutputStream out_;
  ArchivePtr writer_;
  ArchivePtr disk_;
  ResolverPtr resolver_;
  PackStats stats_;
};

}  // namespace

Result<SourceSize> measure_sources(const std::vector<std::string>& sources) {
  SourceSize size;
  auto add = [&size](const fs::directory_entry& entry) {
    std::error_code ec;
    ++size.entries;
    size.tar_bytes += kTarEntryOverhead;
    if (entry.is_regular_file(ec) && !entry.is_symlink(ec)) {
      std::uint64_t bytes = entry.file_size(ec);
      size.file_bytes += bytes;
      size.tar_bytes += bytes;
    }
  };
  for (const auto& source : sources) {
    std::error_code ec;
    fs::directory_entry top(source, ec);
    if (ec || (!top.exists(ec) && !top.is_symlink(ec))) {
      return Error{source + ": no such file or directory"};
    }
    add(top);
    if (!top.is_directory(ec) || top.is_symlink(ec)) continue;
    for (auto it = fs::recursive_directory_iterator(
             source, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      add(*it);
    }
  }
  size.tar_bytes += 20 * kTarBlock;  // end-of-archive blocks and record padding
  return size;
}

Result<PackStats> pack(const PackOptions& options, ByteSink& sink) {
  std::unique_ptr<ByteSink> compressor;
  if (own_compressor(options.format)) {
    Codec codec = options.format == Format::tar_gz    ? Codec::gzip
                  : options.format == Format::tar_bz2 ? Codec::bzip2
                                                      : Codec::zstd;
    auto made = TRY(compressing_sink({codec, options.level, options.threads}, sink));
    compressor = std::move(made);
  }
  return Packer(options, sink, std::move(compressor)).run();
}

}  // namespace pdx
