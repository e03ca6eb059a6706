#include "archive/part_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "archive/part_name.h"
#include "hash/hash_files.h"

namespace pdx {

namespace {

std::string errno_message(const std::string& name, const char* what) {
  return name + ": " + what + ": " + std::strerror(errno);
}

}  // namespace

PartReader::PartReader(std::vector<std::string> parts) {
  for (auto& name : parts) parts_.push_back({std::move(name), {}, 0, false});
}

PartReader::~PartReader() {
  if (fd_ > STDIN_FILENO) ::close(fd_);
}

Result<void> PartReader::check(SetCheck how) {
  TRY(check_files());
  return check_set(how);
}

Result<void> PartReader::check_files() {
  for (auto& part : parts_) {
    if (part.name == "-") continue;
    struct stat st;
    if (::stat(part.name.c_str(), &st) != 0)
      return Error{errno_message(part.name, "cannot read part"), ErrorKind::bad_input};
    if (S_ISDIR(st.st_mode)) {
      return Error{part.name + ": is a directory, not an archive or part", ErrorKind::bad_input};
    }
    if (::access(part.name.c_str(), R_OK) != 0) {
      return Error{errno_message(part.name, "cannot read part"), ErrorKind::bad_input};
    }
    part.regular = S_ISREG(st.st_mode);
    part.path = std::filesystem::absolute(part.name).string();  // the caller may chdir
    part.size = static_cast<std::uint64_t>(st.st_size);
  }
  return open_part(0);
}

Result<std::optional<PartHeader>> PartReader::header_at(std::uint64_t at) const {
  // The element may lie across files (parts cut again, by split -b say): read it piece by piece.
  char head[kPartHeaderMax];
  std::size_t got = 0;
  std::uint64_t start = 0;
  for (const Part& part : parts_) {
    if (got == sizeof head) break;
    if (at + got < start + part.size) {
      int fd = ::open(part.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return Error{errno_message(part.name, "cannot read part"), ErrorKind::bad_input};
      std::size_t want = static_cast<std::size_t>(
          std::min<std::uint64_t>(sizeof head - got, start + part.size - (at + got)));
      ssize_t n;
      do {
        n = ::pread(fd, head + got, want, static_cast<off_t>(at + got - start));
      } while (n < 0 && errno == EINTR);
      int saved = errno;
      ::close(fd);
      errno = saved;
      if (n < 0) return Error{errno_message(part.name, "read failed"), ErrorKind::bad_input};
      got += static_cast<std::size_t>(n);
      if (at + got < start + part.size) break;  // short read: the file shrank
    }
    start += part.size;
  }
  return decode_part_header({head, got});
}

std::pair<std::size_t, std::uint64_t> PartReader::locate(std::uint64_t at) const {
  std::size_t file = 0;
  while (file < parts_.size() && at >= parts_[file].size) {
    at -= parts_[file].size;
    ++file;
  }
  return {file, at};
}

Result<void> PartReader::check_set(SetCheck how) {
  if (!seekable()) return {};  // a pipe cannot be looked ahead in; its decoder checks what it can
  auto bad = [](const std::string& message) { return Error{message, ErrorKind::bad_input}; };
  auto first = TRY(header_at(0));
  if (!first) return check_unframed(how);
  // Walk the headers through the parts read as one stream: each says how long its part is, so
  // the next header is there (at the start of the next file, or further into a joined file).
  const PackId id = first->pack_id;
  const std::string set = "pack " + short_id(id) + " (" + parts_[0].name + ")";
  const std::uint64_t total = total_size();
  std::uint64_t at = 0;
  for (std::uint64_t index = 0;; ++index) {
    auto [file, offset] = locate(at);
    const std::string& name = parts_[file].name;
    auto header = TRY(header_at(at));
    if (!header) {
      if (offset == 0) {
        return bad(name + ": is not a part of " + set +
                   " (it has no part header): parts of different packs are mixed");
      }
      std::optional<PartHeader> file_start;
      if (file > 0) file_start = TRY(header_at(at - offset));
      if (file_start) {
        return bad(parts_[file - 1].name + ": part " + std::to_string(index - 1) + " of " + set +
                   " is shorter than its header says: the file is truncated");
      }
      return bad(name + ": no part header at byte " + std::to_string(offset) + ", where part " +
                 std::to_string(index) + " of " + set +
                 " should begin: a part is damaged, truncated or cut differently");
    }
    if (header->pack_id != id) {
      return bad(name + ": is part " + std::to_string(header->index) + " of another pack (" +
                 short_id(header->pack_id) + "), not of " + set +
                 ": parts of different packs are mixed, as an interrupted pack --split --force "
                 "leaves them");
    }
    if (header->index != index) {
      std::string where = ": part " + std::to_string(index) + " is missing";
      std::uint64_t start = 0;
      for (const Part& part : parts_) {  // given, but elsewhere?
        std::optional<PartHeader> other;
        if (part.size > 0) other = TRY(header_at(start));
        if (other && other->pack_id == id && other->index == index) {
          where = ": the parts are out of order (part " + std::to_string(index) + " is " +
                  part.name + ")";
          break;
        }
        start += part.size;
      }
      return bad(name + ": is part " + std::to_string(header->index) + " of " + set +
                 ", where part " + std::to_string(index) + " should come" + where);
    }
    if (header->length == 0 || at + header->length > total) {
      return bad(parts_.back().name + ": part " + std::to_string(index) + " of " + set +
                 " is truncated (" + std::to_string(total - at) + " bytes of " +
                 std::to_string(header->length) + ")");
    }
    at += header->length;
    if (header->last) {
      if (at == total) {
        pack_id_ = id;
        return {};
      }
      return bad(parts_[locate(at).first].name + ": follows the last part of " + set + " (part " +
                 std::to_string(index) + "): it does not belong to the set");
    }
    if (at == total) {
      return bad(parts_.back().name + ": part " + std::to_string(index) + " of " + set +
                 " is not its last: part " + std::to_string(index + 1) +
                 " and any after it are missing");
    }
  }
}

Result<void> PartReader::check_unframed(SetCheck how) {
  std::optional<std::string> set_path = set_file_beside(parts_[0].name);
  struct stat st;
  if (set_path && ::lstat(set_path->c_str(), &st) == 0) {
    auto set = TRY(read_set_file(*set_path));
    TRY(check_listed(set, *set_path, how));
    if (how == SetCheck::contents) pack_id_ = set.id;
    return {};
  }
  // No set file (parts of an older pdx, or cut by split(1)); but a framed part among them does
  // not belong.
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < parts_.size(); at += parts_[i].size, ++i) {
    if (i == 0 || parts_[i].size == 0) continue;
    if (auto header = TRY(header_at(at))) {
      return Error{parts_[i].name + ": is part " + std::to_string(header->index) + " of pack " +
                       short_id(header->pack_id) + ", but " + parts_[0].name +
                       " is not a part of that pack: parts of different packs are mixed",
                   ErrorKind::bad_input};
    }
  }
  return {};
}

Result<void> PartReader::check_listed(const SetFile& set, const std::string& set_path,
                                      SetCheck how) {
  auto bad = [](const std::string& message) { return Error{message, ErrorKind::bad_input}; };
  const std::string dir = set_path.substr(0, set_path.rfind('/') + 1);  // "" or ".../"
  const std::string listed = set_path + " lists " + std::to_string(set.parts.size()) + " parts";
  for (std::size_t i = 0; i < std::max(parts_.size(), set.parts.size()); ++i) {
    if (i == set.parts.size()) {
      return bad(parts_[i].name + ": not a part of the set: " + listed + ", the last " + dir +
                 set.parts.back().name +
                 "; it is of another set (an interrupted pack --split --force leaves one): "
                 "remove it");
    }
    const SetFile::Part& want = set.parts[i];
    if (i == parts_.size()) {
      return bad("missing part " + dir + want.name + ": " + listed + ", " +
                 std::to_string(parts_.size()) + " given");
    }
    const Part& part = parts_[i];
    if (std::filesystem::path(part.name).filename() != want.name) {
      return bad(part.name + ": given as part " + std::to_string(i) + ", where " + set_path +
                 " lists " + want.name +
                 ": the parts were renamed, or the set file is of another set");
    }
    if (part.size != want.size) {
      return bad(part.name + ": " + std::to_string(part.size) + " bytes, where " + set_path +
                 " lists " + std::to_string(want.size) +
                 ": the part is truncated, or of another set");
    }
  }
  if (how == SetCheck::sizes) return {};
  std::vector<std::string> paths;
  for (const Part& part : parts_) paths.push_back(part.path);
  std::vector<FileHash> hashes = hash_files(paths, FileDigest::xxh3);
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    if (!hashes[i].error.empty()) return Error{hashes[i].error};
    if (hashes[i].digest != set.parts[i].xxh3) {
      return bad(parts_[i].name + ": not the part " + set_path +
                 " lists (its XXH3-128 differs): it is corrupt, or of another pack, as an "
                 "interrupted pack --split --force leaves one");
    }
  }
  return {};
}

std::uint64_t PartReader::total_size() const {
  std::uint64_t total = 0;
  for (const auto& part : parts_) {
    if (!part.regular) return 0;
    total += part.size;
  }
  return total;
}

Result<void> PartReader::open_part(std::size_t index) {
  if (fd_ > STDIN_FILENO) ::close(fd_);
  index_ = index;
  const std::string& name = parts_[index].name;
  fd_ = name == "-" ? STDIN_FILENO : ::open(parts_[index].path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return Error{errno_message(name, "cannot read part")};
  return {};
}

Result<std::size_t> PartReader::read(void* buffer, std::size_t size) {
  for (;;) {
    ssize_t n = ::read(fd_, buffer, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{errno_message(current_part(), "read failed")};
    }
    if (n > 0) {
      position_ += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
    if (index_ + 1 == parts_.size()) return std::size_t{0};
    TRY(open_part(index_ + 1));
  }
}

bool PartReader::seekable() const {
  return std::all_of(parts_.begin(), parts_.end(), [](const Part& p) { return p.regular; });
}

Result<std::uint64_t> PartReader::seek(std::int64_t offset, int whence) {
  std::int64_t target = offset;
  if (whence == SEEK_CUR) target += static_cast<std::int64_t>(position_);
  if (whence == SEEK_END) target += static_cast<std::int64_t>(total_size());
  if (target < 0 || !seekable()) return Error{current_part() + ": cannot seek"};
  // Find the part holding target; a target at or past the end stays in the last part.
  auto wanted = static_cast<std::uint64_t>(target);
  std::uint64_t start = 0;
  std::size_t index = 0;
  while (index + 1 < parts_.size() && wanted >= start + parts_[index].size) {
    start += parts_[index].size;
    ++index;
  }
  if (index != index_) {
    TRY(open_part(index));
  }
  if (::lseek(fd_, static_cast<off_t>(wanted - start), SEEK_SET) < 0) {
    return Error{errno_message(current_part(), "cannot seek")};
  }
  position_ = wanted;
  return wanted;
}

}  // namespace pdx
