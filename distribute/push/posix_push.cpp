#include "distribute/push/posix_push.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "archive/part_reader.h"
#include "archive/temp_file.h"
#include "base/quiet_threads.h"
#include "core/hostset.h"
#include "distribute/host_outcome.h"
#include "distribute/remote_agent.h"

namespace pdx {

namespace {

constexpr std::size_t kChunk = 1 << 20;

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;
using EntryPtr = std::unique_ptr<archive_entry, void (*)(archive_entry*)>;

// A tar stream into `fd` (the pipe), entries under "d/" as posix_push_command reads them (pax:
// mtimes to the nanosecond, as the agent keeps them; names as bytes, whatever the locale, as
// hdrcharset=BINARY says). The first failure ends it: its stream then lacks the end marker, and
// the hosts' sh refuses it.
class TarWriter {
 public:
  explicit TarWriter(int fd) : archive_(archive_write_new(), archive_write_free) {
    ok_ = archive_write_set_format_pax(archive_.get()) == ARCHIVE_OK &&
          archive_write_set_format_option(archive_.get(), "pax", "hdrcharset", "BINARY") ==
              ARCHIVE_OK &&
          archive_write_open_fd(archive_.get(), fd) == ARCHIVE_OK;
    if (!ok_) error_ = archive_message();
  }
  ~TarWriter() {
    if (ok_) archive_write_close(archive_.get());
  }
  bool ok() const { return ok_; }
  // Why the stream ended early here, "NAME: what libarchive said"; "" when it did not, or when
  // the read end was closed (the hosts are gone: they say why themselves).
  const std::string& error() const { return error_; }

  // A header; a regular file's data follows with data(), padded with zeros to `size` if short.
  bool header(const std::string& name, mode_t type, std::uint32_t mode, std::uint64_t size = 0,
              std::int64_t mtime_sec = 0, std::uint32_t mtime_nsec = 0) {
    if (!ok_) return false;
    EntryPtr entry(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_filetype(entry.get(), type);
    archive_entry_set_perm(entry.get(), mode);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(size));
    archive_entry_set_mtime(entry.get(), mtime_sec, mtime_nsec);
    name_ = name;
    return check(archive_write_header(archive_.get(), entry.get()) == ARCHIVE_OK);
  }
  // A symlink NAME -> TARGET, verbatim.
  bool symlink(const std::string& name, const std::string& target, std::int64_t mtime_sec,
               std::uint32_t mtime_nsec) {
    if (!ok_) return false;
    EntryPtr entry(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFLNK);
    archive_entry_set_perm(entry.get(), 0777);
    archive_entry_set_symlink(entry.get(), target.c_str());
    archive_entry_set_mtime(entry.get(), mtime_sec, mtime_nsec);
    name_ = name;
    return check(archive_write_header(archive_.get(), entry.get()) == ARCHIVE_OK);
  }
  bool data(const char* bytes, std::size_t size) {
    return ok_ &&
           check(archive_write_data(archive_.get(), bytes, size) == static_cast<la_ssize_t>(size));
  }

 private:
  bool check(bool ok) {
    ok_ = ok;
    if (!ok && archive_errno(archive_.get()) != EPIPE) {
      std::string_view shown = name_;
      if (shown.starts_with("d/")) shown.remove_prefix(2);
      error_ = printable(shown) + ": cannot be sent: " + archive_message();
    }
    return ok;
  }
  std::string archive_message() {
    const char* message = archive_error_string(archive_.get());
    return message ? message : "unknown error";
  }

  ArchivePtr archive_;
  bool ok_ = false;
  std::string name_;  // the entry being written
  std::string error_;
};

// Sends one file as "d/NAME"; returns the error to note if it could not be read whole.
std::string send_file(TarWriter& out, const LocalFile& f, std::string& buffer) {
  if (!out.header("d/" + f.name, AE_IFREG, f.mode, f.size, f.mtime_sec, f.mtime_nsec)) return {};
  Fd in(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in) return f.path + ": " + std::strerror(errno);
  for (std::uint64_t sent = 0; sent < f.size;) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, f.size - sent));
    ssize_t n = ::read(in.get(), buffer.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return f.path +
             (n == 0 ? ": changed while read (shorter)" : std::string(": ") + std::strerror(errno));
    if (!out.data(buffer.data(), static_cast<std::size_t>(n))) return {};
    sent += static_cast<std::uint64_t>(n);
  }
  return {};
}

// The stream of a plan's files, symlinks and directories, as posix_push_command reads it; what
// could not be read here into `errors`.
void write_files(int fd, const Layout& layout, const std::vector<std::size_t>& dirs,
                 const std::vector<std::size_t>& files, const std::vector<std::size_t>& links,
                 std::vector<std::string>& errors) {
  TarWriter out(fd);
  out.header("d", AE_IFDIR, 0700);
  std::string buffer(kChunk, '\0'), skipped;
  for (std::size_t f : files) {
    const LocalFile& file = layout.files[f];
    std::string error = send_file(out, file, buffer);
    if (error.empty()) continue;
    errors.push_back(std::move(error));
    skipped += file.name + '\0';
  }
  for (std::size_t l : links) {
    const LocalLink& link = layout.links[l];
    out.symlink("d/" + link.name, link.target, link.mtime_sec, link.mtime_nsec);
  }
  // Directories after the files (the host's tar makes those it lacks on the way), so that their
  // mtimes are set once their contents are in; each writable by its owner while mv empties it.
  // Once placed, each gets its mode and mtime ("modes", deepest first, the mtime from a stamp
  // file): a new one moved whole keeps them, but one that was there takes only its contents.
  std::vector<std::string> records;
  for (std::size_t d : dirs) {
    const LocalDir& dir = layout.dirs[d];
    out.header("d/" + dir.name, AE_IFDIR, dir.mode | 0700, 0, dir.mtime_sec, dir.mtime_nsec);
    std::string stamp = "s/" + std::to_string(records.size());
    out.header(stamp, AE_IFREG, 0600, 0, dir.mtime_sec, dir.mtime_nsec);
    char mode[16];
    std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(dir.mode));
    records.push_back(mode + std::string(1, '\0') + stamp + '\0' + dir.name + '\0');
  }
  std::string modes;
  for (auto it = records.rbegin(); it != records.rend(); ++it) modes += *it;
  for (const auto& [name, bytes] :
       {std::pair<const char*, const std::string&>{"skip", skipped}, {"modes", modes}})
    if (!bytes.empty() && out.header(name, AE_IFREG, 0600, bytes.size()))
      out.data(bytes.data(), bytes.size());
  out.header(kPosixStreamEnd, AE_IFREG, 0600);  // all went: the hosts may place it
  if (!out.error().empty()) errors.push_back(out.error());
}

// The parts into `fd`, `head` (their first bytes, read already) first, as many bytes as they
// held when checked (`size`): the stream's last byte goes only once the last part has ended
// there, so that a host (which places nothing short of `size` bytes) never takes a stream as
// whole that a read error, or a part changed meanwhile, ended early or late.
void send_parts(int fd, PartReader& reader, const std::string& head, std::uint64_t size,
                std::vector<std::string>& errors) {
  std::string buffer = head;  // read, not sent yet
  std::uint64_t got = head.size();
  for (;;) {
    if (got > size) {
      errors.push_back(reader.current_part() + ": changed while read (longer)");
      return;
    }
    std::size_t now = buffer.size() - (got == size && !buffer.empty() ? 1 : 0);
    if (now > 0 && !write_all(fd, buffer.data(), now, "pipe")) return;  // the hosts are gone
    buffer.erase(0, now);
    std::size_t held = buffer.size();
    buffer.resize(held + kChunk);
    auto n = reader.read(buffer.data() + held, kChunk);
    if (!n) {
      errors.push_back(n.error());  // the hosts find the stream cut short
      return;
    }
    buffer.resize(held + *n);
    if (*n == 0) break;
    got += *n;
  }
  if (got != size) {
    errors.push_back(reader.current_part() + ": changed while read (shorter)");
    return;
  }
  if (!buffer.empty()) write_all(fd, buffer.data(), buffer.size(), "pipe");
}

// The compression of an archive, by its first bytes: the host tool that undoes it.
Result<std::string> decompressor_of(std::string_view head) {
  if (head.starts_with("\x1f\x8b")) return std::string("gzip");
  if (head.starts_with("BZh")) return std::string("bzip2");
  if (head.starts_with(std::string_view("\xfd"
                                        "7zXZ\0",
                                        6)))
    return std::string("xz");
  if (head.starts_with("\x28\xb5\x2f\xfd")) return std::string("zstd");
  if (head.starts_with("PK")) return Error{"a zip archive cannot be unpacked by the host's tar"};
  return std::string();
}

bool whole_number(std::string_view text, std::uint64_t& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// The records of a reply: each ended by a NUL. An Error for bytes after the last NUL.
Result<std::vector<std::string_view>> records(std::string_view out) {
  std::vector<std::string_view> fields;
  while (!out.empty()) {
    auto nul = out.find('\0');
    if (nul == std::string_view::npos) return Error{"a record without its end"};
    fields.push_back(out.substr(0, nul));
    out.remove_prefix(nul + 1);
  }
  return fields;
}

// Find's %T@ ("981173106.5000000000", "-1.5000000000") as stat's tv_sec and tv_nsec.
bool time_of(std::string_view text, std::int64_t& seconds, std::uint32_t& nanoseconds) {
  std::size_t dot = std::min(text.find('.'), text.size());
  auto [end, ec] = std::from_chars(text.data(), text.data() + dot, seconds);
  if (ec != std::errc() || end != text.data() + dot || dot == 0) return false;
  std::string_view fraction = text.substr(std::min(dot + 1, text.size()));
  if (dot < text.size() &&
      (fraction.empty() || fraction.find_first_not_of("0123456789") != std::string_view::npos))
    return false;
  nanoseconds = 0;
  for (std::size_t i = 0; i < 9; ++i)
    nanoseconds = nanoseconds * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  if (text.front() == '-' && nanoseconds != 0) {  // -1.5: a second and a half before the epoch
    --seconds;
    nanoseconds = 1000000000 - nanoseconds;
  }
  return true;
}

// "TYPE SIZE MTIME NAME" of a record of posix_list_command (`whole`, for messages), NAME "" or
// "./..." (checked).
Result<Entry> posix_entry_without_mode(std::string_view record, std::string_view whole) {
  auto malformed = [&](const std::string& why) {
    return Error{why + " in '" + printable(whole.substr(0, 80)) + "'"};
  };
  std::size_t size_end = record.find(' ', 2);
  std::size_t mtime_end =
      size_end == std::string_view::npos ? size_end : record.find(' ', size_end + 1);
  if (record.size() < 2 || record[1] != ' ' || mtime_end == std::string_view::npos)
    return malformed("not TYPE SIZE MTIME NAME");
  Entry entry;
  entry.kind = record[0] == 'f'   ? EntryKind::file
               : record[0] == 'd' ? EntryKind::directory
               : record[0] == 'n' ? EntryKind::missing
                                  : EntryKind::other;
  if (!whole_number(record.substr(2, size_end - 2), entry.size) ||
      !time_of(record.substr(size_end + 1, mtime_end - size_end - 1), entry.mtime_sec,
               entry.mtime_nsec))
    return malformed("a bad size or time");
  std::string_view name = record.substr(mtime_end + 1);
  if (!name.empty()) {
    if (!name.starts_with("./")) return malformed("a name not under DEST");
    name.remove_prefix(2);
    if (auto checked = check_name(name); !checked || name.empty())
      return malformed("an unsafe name");
  }
  entry.name = std::string(name);
  return entry;
}

// One record of posix_list_command: "TYPE MODE SIZE MTIME NAME", MODE in octal (find's %m).
Result<Entry> posix_entry(std::string_view record) {
  std::size_t mode_end = record.find(' ', 2);
  if (record.size() < 2 || record[1] != ' ' || mode_end == std::string_view::npos || mode_end > 7)
    return Error{"not TYPE MODE SIZE MTIME NAME in '" + printable(record.substr(0, 80)) + "'"};
  std::uint32_t mode = 0;
  for (char c : record.substr(2, mode_end - 2)) {
    if (c < '0' || c > '7') return Error{"a bad mode in '" + printable(record.substr(0, 80)) + "'"};
    mode = mode * 8 + static_cast<std::uint32_t>(c - '0');
  }
  std::string rest = std::string(record.substr(0, 1)) + std::string(record.substr(mode_end));
  Entry entry = TRY(posix_entry_without_mode(rest, record));
  entry.mode = mode & 07777;
  return entry;
}

Result<void> read_records(std::string_view out, PushedHost& outcome) {
  auto fields = TRY(records(out));
  for (std::size_t k = 0; k < fields.size(); ++k) {
    std::string_view field = fields[k];
    if (field == "f" && k + 2 < fields.size()) {
      outcome.failed.push_back({printable(fields[k + 1]), printable(fields[k + 2])});
      k += 2;
      continue;
    }
    auto space = field.find(' ', 2);
    if (!field.starts_with("c ") || k + 1 != fields.size() || space == std::string_view::npos ||
        !whole_number(field.substr(2, space - 2), outcome.written.files) ||
        !whole_number(field.substr(space + 1), outcome.written.bytes))
      return Error{"unexpected record '" + printable(field.substr(0, 40)) + "'"};
    outcome.written.failures = outcome.failed.size();
    return {};
  }
  return Error{"no count at its end"};
}

}  // namespace

std::string posix_unlisted_warning(const std::vector<std::string>& labels) {
  if (labels.empty()) return {};
  return "pdx: warning: " + fold_names(labels) +
         ": the host's find cannot list DEST (not GNU find); sending everything\n";
}

Result<HostListing> parse_posix_listing(std::string_view reply) {
  auto fields = TRY(records(reply));
  HostListing listing;
  for (std::size_t k = 0; k < fields.size(); ++k) {
    Entry entry = TRY(posix_entry(fields[k]));
    if ((k == 0) != entry.name.empty())
      return Error{"listing out of order at '" + printable(fields[k].substr(0, 80)) + "'"};
    if (k == 0)
      listing.dest = std::move(entry);
    else
      listing.entries[entry.name] = std::move(entry);
  }
  if (fields.empty()) return Error{"an empty listing"};
  return listing;
}

template <class Produce>
Result<std::unique_ptr<PosixPush>> PosixPush::start(std::string command, Produce produce) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::unique_ptr<PosixPush> push(new PosixPush());
  push->command_ = std::move(command);
  push->read_ = Fd(fds[0]);
  QuietThreads quiet;
  push->thread_ = std::thread([errors = &push->errors_, produce = std::move(produce),
                               w = Fd(fds[1])] { produce(w.get(), *errors); });
  return push;
}

Result<std::unique_ptr<PosixPush>> PosixPush::files(const PushSources& sources,
                                                    const HostPushPlan& plan,
                                                    const std::string& dest) {
  PosixLanding landing;
  if (sources.as) {
    landing.kind = PosixLanding::Kind::into_or_as;
    landing.name = sources.into.files.front().name;
  }
  // The stream names files as `into` does; the one file of `as` is into's only file, placed as
  // DEST by the landing.
  std::vector<std::size_t> dirs = plan.into ? plan.dirs : std::vector<std::size_t>();
  return start(posix_push_command(dest, landing),
               [&layout = sources.into, dirs = std::move(dirs), files = plan.files,
                links = plan.links](int fd, std::vector<std::string>& errors) {
                 write_files(fd, layout, dirs, files, links, errors);
               });
}

Result<std::unique_ptr<PosixPush>> PosixPush::archive(const std::vector<std::string>& parts,
                                                      const std::string& dest,
                                                      const std::string& set) {
  // The host places nothing unless it receives the parts' size: it must be known first.
  for (const auto& part : parts) {
    struct stat st;
    if (part == "-" || ::stat(part.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      return Error{part +
                   ": not a regular file; hosts without the agent need the archive's size first"};
  }
  auto reader = std::make_shared<PartReader>(parts);
  TRY(reader->check(SetCheck::sizes));  // push() checked their contents before it sent anything
  // The first bytes tell the compression; they are sent first.
  auto head = std::make_shared<std::string>();
  char byte[8];
  while (head->size() < sizeof byte) {
    std::size_t n = TRY(reader->read(byte, sizeof byte - head->size()));
    if (n == 0) break;
    head->append(byte, n);
  }
  PosixLanding landing;
  landing.kind = PosixLanding::Kind::extract;
  landing.decompressor = TRY(decompressor_of(*head));
  landing.size = reader->total_size();
  landing.set = set;
  return start(posix_push_command(dest, landing),
               [reader, head, size = landing.size](int fd, std::vector<std::string>& errors) {
                 send_parts(fd, *reader, *head, size, errors);
               });
}

PosixPush::~PosixPush() {
  finish();
}

std::vector<std::string> PosixPush::finish() {
  read_.reset();
  if (thread_.joinable()) thread_.join();
  return errors_;
}

void read_posix_reply(const ReplySink::Reply& reply, PushedHost& outcome) {
  if (reply.result.exit_status != 0 || !reply.result.signal.empty()) {
    outcome.error = host_said(reply);
    return;
  }
  if (reply.overflow) {
    outcome.error = "the host's reply is over its limit";
    return;
  }
  if (auto read = read_records(reply.out, outcome); !read)
    outcome.error = "malformed reply from the host's sh: " + read.error();
}

}  // namespace pdx
