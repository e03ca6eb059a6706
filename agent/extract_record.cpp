#include "agent/extract_record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "hash/sha256.h"
#include "archive/temp_file.h"
#include "hash/xxh3.h"
#include "agent/payload_fields.h"

namespace pdx {

namespace fs = std::filesystem;

namespace {

const std::string kMagic = "pdx extracted 1\n";
constexpr std::size_t kMaxRecord = 1024u * 1024 * 1024;  // names of millions of entries
constexpr std::size_t kMaxDest = 64 * 1024;

std::string join(const std::string& dest, const std::string& name) {
  return dest.ends_with('/') ? dest + name : dest + "/" + name;
}

// DEST as the record names it: absolute, normalized, without a trailing '/' ("x" and "x/" are one
// DEST).
std::string absolute_dest(const std::string& dest) {
  std::error_code ec;
  std::string path = fs::absolute(dest, ec).lexically_normal().string();
  while (path.size() > 1 && path.ends_with('/')) path.pop_back();
  return path;
}

}  // namespace

bool valid_set_id(std::string_view set) {
  return !set.empty() && set.size() <= 128 &&
         set.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz-") == std::string_view::npos;
}

std::string encode_record(const ExtractRecord& record) {
  PayloadWriter out;
  out.raw(kMagic.data(), kMagic.size()).str(record.set).str(record.dest).u64(record.names.size());
  for (const auto& name : record.names) out.str(name);
  return out.str(record.digest).take();
}

Result<ExtractRecord> decode_record(std::string_view bytes) {
  if (!bytes.starts_with(kMagic)) return Error{"not a record of pdx", ErrorKind::bad_input};
  PayloadReader in(bytes.substr(kMagic.size()), "extract record");
  ExtractRecord record;
  record.set = in.str(128);
  record.dest = in.str(kMaxDest);
  std::uint64_t count = in.u64();
  for (std::uint64_t i = 0; in.ok() && i < count; ++i) record.names.push_back(in.name());
  record.digest = in.xxh3(Digest::required);
  TRY(in.end());
  if (!valid_set_id(record.set) || !record.dest.starts_with('/'))
    return Error{"malformed extract record", ErrorKind::bad_input};
  for (const auto& name : record.names)
    if (name.empty()) return Error{"malformed extract record", ErrorKind::bad_input};
  return record;
}

std::optional<std::string> entries_digest(const std::string& dest,
                                          const std::vector<std::string>& names) {
  StreamHash hash;
  for (const auto& name : names) {
    struct stat st;
    if (::lstat(join(dest, name).c_str(), &st) != 0) return std::nullopt;
    PayloadWriter fields;
    fields.str(name).u32(st.st_mode).u64(st.st_ino);
    if (!S_ISDIR(st.st_mode))
      fields.u64(static_cast<std::uint64_t>(st.st_size))
          .i64(st.st_mtim.tv_sec)
          .u32(static_cast<std::uint32_t>(st.st_mtim.tv_nsec))
          .i64(st.st_ctim.tv_sec)
          .u32(static_cast<std::uint32_t>(st.st_ctim.tv_nsec));
    std::string bytes = fields.take();
    hash.update(bytes.data(), bytes.size());
  }
  return hex(hash.digest());
}

std::string extract_record_path(const std::string& dest) {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return "";
  Sha256 sha;
  sha.update(dest.data(), dest.size());
  return std::string(home) + "/.cache/pdx/extracted/" + sha.hex_digest();
}

Result<void> record_extracted(const std::string& given, const std::string& set,
                              std::vector<std::string> names) {
  const std::string dest = absolute_dest(given);
  std::string path = extract_record_path(dest);
  if (path.empty()) return Error{"HOME is not set"};
  auto digest = entries_digest(dest, names);
  if (!digest) return Error{"an entry placed is gone already"};
  std::error_code ec;
  fs::path dir = fs::path(path).parent_path();
  fs::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
  std::string bytes = encode_record({set, dest, std::move(names), *digest});
  auto file = TRY(TempFile::create(path));
  TRY(file.write(bytes.data(), bytes.size()));
  return file.commit();
}

bool holds_extracted(const std::string& given, const std::string& set) {
  const std::string dest = absolute_dest(given);
  std::string path = extract_record_path(dest);
  if (path.empty()) return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  std::string bytes;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && bytes.size() < kMaxRecord)
    bytes.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  if (n != 0) return false;
  auto record = decode_record(bytes);
  if (!record || record->set != set || record->dest != dest) return false;
  return entries_digest(dest, record->names) == record->digest;
}

void forget_extracted(const std::string& dest) {
  std::string path = extract_record_path(absolute_dest(dest));
  if (!path.empty()) ::unlink(path.c_str());
}

}  // namespace pdx
