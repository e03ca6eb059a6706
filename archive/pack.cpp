#include "archive/pack.h"

#include "archive/compressor.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

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
    out->buffer.insert(out->buffer.end(), p, p + size);
    out->written += size;
    if (out->buffer.size() >= kOutputBuffer && !out->flush()) {
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

// The archive name of an entry walked as `path` under a source opened as name.opened.
std::string entry_name(const StoredName& name, const std::string& path) {
  std::string rest = path.substr(std::min(path.size(), name.opened.size()));
  if (name.stored.empty()) {
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    return rest;
  }
  return name.stored + rest;
}

std::string archive_message(struct archive* a) {
  const char* message = archive_error_string(a);
  return message ? message : "unknown error";
}

bool own_compressor(Format format) {
  return format == Format::tar_gz || format == Format::tar_zst;
}

// The libarchive filter for bzip2 and xz; gzip and zstd are compressed by compressing_sink()
// (archive/compressor.h says why).
Result<void> set_filter(struct archive* a, Format format) {
  int r = ARCHIVE_OK;
  if (format == Format::tar_bz2) r = archive_write_add_filter_bzip2(a);
  if (format == Format::tar_xz) r = archive_write_add_filter_xz(a);
  if (r != ARCHIVE_OK) return Error{"cannot compress: " + archive_message(a)};
  return {};
}

Result<void> set_options(struct archive* a, const PackOptions& options) {
  bool zip = options.format == Format::zip;
  if (zip) {
    if (archive_write_set_format_zip(a) != ARCHIVE_OK) return Error{archive_message(a)};
  } else if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK) {
    return Error{archive_message(a)};
  }
  if (auto ok = set_filter(a, options.format); !ok) return ok;
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
  if (options.format == Format::tar_bz2 || options.format == Format::tar_xz ||
      options.format == Format::zip) {
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
    if (auto ok = set_options(writer_.get(), options_); !ok) return Error{ok.error()};
    archive_entry_linkresolver_set_strategy(resolver_.get(), archive_format(writer_.get()));
    archive_read_disk_set_standard_lookup(disk_.get());
    archive_read_disk_set_symlink_physical(disk_.get());
    out_.buffer.reserve(kOutputBuffer);
    if (archive_write_open(writer_.get(), &out_, nullptr, OutputStream::write_callback, nullptr) !=
        ARCHIVE_OK) {
      return Error{write_error()};
    }
    for (const auto& source : options_.sources) {
      if (auto ok = pack_source(source); !ok) return Error{ok.error()};
    }
    if (archive_write_close(writer_.get()) != ARCHIVE_OK || !out_.flush()) {
      return Error{write_error()};
    }
    if (auto ok = out_.sink.finish(); !ok) return Error{ok.error()};
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

  Result<void> pack_source(const std::string& source) {
    StoredName name = stored_name(source);
    if (!name.removed.empty()) {
      warn("removing leading '" + name.removed + "' from member names of " + source);
    }
    if (archive_read_disk_open(disk_.get(), name.opened.c_str()) != ARCHIVE_OK) {
      return Error{source + ": cannot read: " + archive_message(disk_.get())};
    }
    for (;;) {
      EntryPtr entry(archive_entry_new(), archive_entry_free);
      int r = archive_read_next_header2(disk_.get(), entry.get());
      if (r == ARCHIVE_EOF) break;
      if (r != ARCHIVE_OK) {
        return Error{source + ": cannot read: " + archive_message(disk_.get())};
      }
      archive_read_disk_descend(disk_.get());
      std::string stored = entry_name(name, archive_entry_pathname(entry.get()));
      if (stored.empty()) continue;  // the root of "/" itself
      archive_entry_set_pathname(entry.get(), stored.c_str());
      if (auto ok = pack_entry(entry.get()); !ok) return ok;
    }
    archive_read_close(disk_.get());
    return {};
  }

  Result<void> pack_entry(archive_entry* entry) {
    const char* source_path = archive_entry_sourcepath(entry);
    bool regular = archive_entry_filetype(entry) == AE_IFREG;
    if (regular && ::access(source_path, R_OK) != 0) {
      return Error{std::string(source_path) + ": cannot read: " + std::strerror(errno) +
                   "; fix its permissions or leave it out"};
    }
    archive_entry* spare = nullptr;
    archive_entry_linkify(resolver_.get(), &entry, &spare);
    int r = archive_write_header(writer_.get(), entry);
    if (r == ARCHIVE_FAILED || r == ARCHIVE_WARN) {
      warn(std::string(source_path) + ": not stored: " + archive_message(writer_.get()));
      ++stats_.incomplete;
      if (r == ARCHIVE_FAILED) return {};
    } else if (r != ARCHIVE_OK) {
      return Error{write_error()};
    }
    if (options_.on_entry) options_.on_entry(archive_entry_pathname(entry));
    if (!regular) return {};
    ++stats_.files;
    if (archive_entry_size(entry) > 0) return copy_data(entry, source_path);
    return {};
  }

  // Copies one file's data; holes the disk reader skipped are written as zeros, which the pax
  // writer leaves out again for a sparse entry (as bsdtar does).
  Result<void> copy_data(archive_entry* entry, const char* source_path) {
    static const std::vector<char> zeros(1 << 16, 0);
    std::int64_t done = 0;
    const void* block;
    size_t size;
    la_int64_t offset;
    int r;
    while ((r = archive_read_data_block(disk_.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      while (done < offset) {
        auto n = static_cast<size_t>(std::min<std::int64_t>(offset - done, zeros.size()));
        if (auto ok = write_data(zeros.data(), n); !ok) return Error{ok.error()};
        done += static_cast<std::int64_t>(n);
      }
      auto written = write_data(block, size);
      if (!written) return Error{written.error()};
      done += static_cast<std::int64_t>(*written);
      if (*written < size) break;  // the file grew past the size in its header
      stats_.file_bytes += size;
      if (options_.on_progress) options_.on_progress(stats_.file_bytes, sink_.written());
    }
    if (r != ARCHIVE_OK && r != ARCHIVE_EOF) {
      return Error{std::string(source_path) + ": cannot read: " + archive_message(disk_.get())};
    }
    if (done != archive_entry_size(entry)) {
      warn(std::string(source_path) + ": file changed as we read it");
      ++stats_.incomplete;
    }
    return {};
  }

  Result<std::size_t> write_data(const void* data, std::size_t size) {
    la_ssize_t n = archive_write_data(writer_.get(), data, size);
    if (n < 0) return Error{write_error()};
    return static_cast<std::size_t>(n);
  }

  const PackOptions& options_;
  ByteSink& sink_;
  std::unique_ptr<ByteSink> compressor_;  // in front of sink_ for gzip and zstd
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
    Codec codec = options.format == Format::tar_gz ? Codec::gzip : Codec::zstd;
    auto made = compressing_sink({codec, options.level, options.threads}, sink);
    if (!made) return Error{made.error()};
    compressor = std::move(*made);
  }
  return Packer(options, sink, std::move(compressor)).run();
}

}  // namespace pdx
