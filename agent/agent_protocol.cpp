#include "agent/agent_protocol.h"

#include "agent/payload_fields.h"
#include "archive/temp_file.h"
#include "hash/xxh3.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <optional>

namespace pdx {

namespace {

constexpr std::size_t kHeader = kFrameHeaderBytes;
bool known_type(std::uint8_t t) {
  constexpr FrameType kTypes[] = {
      FrameType::file,
      FrameType::data,
      FrameType::hole,
      FrameType::file_end,
      FrameType::directory,
      FrameType::symlink,
      FrameType::archive,
      FrameType::archive_end,
      FrameType::done,
      FrameType::entry,
      FrameType::extracted,
      FrameType::written,
      FrameType::note,
      FrameType::failed,
      FrameType::summary,
      FrameType::relay_setup,
      FrameType::relay_next,
      FrameType::relay_go,
      FrameType::relay_listening,
      FrameType::relay_linked,
      FrameType::relay_end,
      FrameType::sig_request,
      FrameType::sig_reply,
      FrameType::sig_blocks,
      FrameType::delta_file,
      FrameType::delta_ops,
      FrameType::delta_end,
  };
  return std::any_of(std::begin(kTypes), std::end(kTypes),
                     [t](FrameType k) { return static_cast<std::uint8_t>(k) == t; });
}

// The payload length of the frame `held` starts with, nullopt until its header is all there. An
// Error as soon as its type or length is known to be bad.
Result<std::optional<std::size_t>> payload_length(std::string_view held) {
  auto type = static_cast<std::uint8_t>(held[0]);
  if (!known_type(type))
    return Error{"bad frame type " + std::to_string(type), ErrorKind::bad_input};
  if (held.size() < kHeader) return std::optional<std::size_t>();
  std::uint64_t length = get_uint(held.substr(1, 4));
  if (length > kMaxPayload)
    return Error{"frame of " + std::to_string(length) + " bytes is over the limit",
                 ErrorKind::bad_input};
  return std::optional<std::size_t>(length);
}

constexpr std::size_t kReaderCapacity = 2 * (kHeader + kMaxPayload);
constexpr std::size_t kReadAhead = 64 * 1024;  // read past a frame's end: small frames in one go

}  // namespace

std::array<char, kFrameHeaderBytes> frame_header(FrameType type, std::size_t length) {
  std::array<char, kHeader> header{static_cast<char>(type)};
  for (std::size_t i = 0; i < 4; ++i)
    header[kHeader - 1 - i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return header;
}

std::string encode_frame(FrameType type, std::string_view payload) {
  std::string out;
  out.reserve(kHeader + payload.size());
  auto header = frame_header(type, payload.size());
  out.append(header.data(), header.size());
  out.append(payload);
  return out;
}

Result<void> write_frame(int fd, FrameType type, std::string_view payload) {
  std::string frame = encode_frame(type, payload);
  return write_all(fd, frame.data(), frame.size(), "standard output");
}

Result<void> FrameBatch::add(FrameType type, std::string_view payload) {
  auto header = frame_header(type, payload.size());
  pending_.append(header.data(), header.size());
  pending_.append(payload);
  if (pending_.size() >= kFlushAt) return flush();
  return {};
}

Result<void> FrameBatch::flush() {
  auto written = write_all(fd_, pending_.data(), pending_.size(), "standard output");
  pending_.clear();
  return written;
}

void FrameDecoder::feed(std::string_view bytes) {
  if (start_ > 0 && start_ >= buffer_.size() / 2) {  // keep the buffer from growing without end
    buffer_.erase(0, start_);
    start_ = 0;
  }
  buffer_.append(bytes);
}

Result<std::optional<Frame>> FrameDecoder::next() {
  std::string_view held(buffer_.data() + start_, buffer_.size() - start_);
  if (held.empty()) return std::optional<Frame>();
  auto length = TRY(payload_length(held));
  if (!length || held.size() < kHeader + *length) return std::optional<Frame>();
  Frame frame{static_cast<FrameType>(held[0]), std::string(held.substr(kHeader, *length))};
  start_ += kHeader + *length;
  return std::optional<Frame>(std::move(frame));
}

Result<std::size_t> FdInput::read(char* to, std::size_t size) {
  for (;;) {
    ssize_t n = ::read(fd_, to, size);
    if (n >= 0) return std::size_t(n);
    if (errno != EINTR) return Error{std::strerror(errno)};
  }
}

FrameReader::FrameReader(FrameInput& input, ReadAhead ahead)
    : input_(&input),
      ahead_(ahead),
      buffer_(std::make_unique_for_overwrite<char[]>(kReaderCapacity)) {}

FrameReader::FrameReader(int fd) : FrameReader(fd_) {
  fd_ = FdInput(fd);
}

Result<std::optional<FrameView>> FrameReader::next() {
  for (;;) {
    std::string_view held(buffer_.get() + start_, end_ - start_);
    std::optional<std::size_t> length;
    if (!held.empty()) length = TRY(payload_length(held));
    std::size_t need = kHeader + length.value_or(0);  // of this frame, at least
    if (length && held.size() >= need) {
      start_ += need;
      return std::optional<FrameView>(
          FrameView{static_cast<FrameType>(held[0]), held.substr(kHeader, *length)});
    }
    // Room for the whole frame: what came of it goes to the front when it would not fit (a
    // read-ahead's worth at most, as reads stop there past a frame's end).
    if (start_ + need > kReaderCapacity || held.empty()) {
      std::memmove(buffer_.get(), held.data(), held.size());
      start_ = 0;
      end_ = held.size();
    }
    std::size_t ahead = ahead_ == ReadAhead::yes ? kReadAhead : 0;
    std::size_t want = std::min(kReaderCapacity - end_, std::max(need - held.size(), ahead));
    std::size_t n = TRY(input_->read(buffer_.get() + end_, want));
    if (n == 0 && held.empty()) return std::optional<FrameView>();
    if (n == 0) return Error{"input ended inside a frame", ErrorKind::bad_input};
    end_ += n;
  }
}

void hash_zeros(StreamHash& hash, std::uint64_t length) {
  static const std::string zeros(kDataChunk, '\0');
  for (std::uint64_t left = length; left > 0;) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
    hash.update(zeros.data(), n);
    left -= n;
  }
}

bool same_mtime(std::int64_t have_sec, std::uint32_t have_nsec, std::int64_t want_sec,
                std::uint32_t want_nsec) {
  if (have_sec != want_sec) return false;
  for (std::uint64_t unit = 1; unit <= 1000000000; unit *= 10)
    if (have_nsec == want_nsec - want_nsec % unit) return true;
  return false;
}

std::string encode(const FileHeader& m) {
  return PayloadWriter()
      .str(m.name)
      .u32(m.mode)
      .i64(m.mtime_sec)
      .u32(m.mtime_nsec)
      .u64(m.size)
      .take();
}
std::string encode(const FileEnd& m) {
  return PayloadWriter().str(m.xxh3_128).take();
}
std::string encode(const Hole& m) {
  return PayloadWriter().u64(m.length).take();
}
std::string encode(const Directory& m) {
  return PayloadWriter().str(m.name).u32(m.mode).i64(m.mtime_sec).u32(m.mtime_nsec).take();
}
std::string encode(const Symlink& m) {
  return PayloadWriter().str(m.name).str(m.target).i64(m.mtime_sec).u32(m.mtime_nsec).take();
}
std::string encode(const Entry& m) {
  return PayloadWriter()
      .str(m.name)
      .u8(static_cast<std::uint8_t>(m.kind))
      .u32(m.mode)
      .u64(m.size)
      .i64(m.mtime_sec)
      .str(m.digest)
      .str(m.target)
      .u32(m.mtime_nsec)
      .take();
}
std::string encode(const Written& m) {
  return PayloadWriter().str(m.name).u64(m.bytes).take();
}
std::string encode(const Failed& m) {
  return PayloadWriter().str(m.path).str(m.reason).take();
}
std::string encode(const Summary& m) {
  return PayloadWriter().u64(m.files).u64(m.bytes).u64(m.failures).take();
}

Result<FileHeader> decode_file_header(std::string_view payload) {
  auto m = TRY(decode_fields<FileHeader>(payload, "file", [](PayloadReader& r) {
    return FileHeader{r.name(), r.mode(), r.i64(), r.u32(), r.u64()};
  }));
  if (m.mtime_nsec >= 1000000000) m.mtime_nsec = 0;
  return m;
}

Result<FileEnd> decode_file_end(std::string_view payload) {
  return decode_fields<FileEnd>(payload, "file end",
                                [](PayloadReader& r) { return FileEnd{r.xxh3(Digest::required)}; });
}

Result<Hole> decode_hole(std::string_view payload) {
  return decode_fields<Hole>(payload, "hole", [](PayloadReader& r) { return Hole{r.u64()}; });
}

Result<Directory> decode_directory(std::string_view payload) {
  auto m = TRY(decode_fields<Directory>(payload, "directory", [](PayloadReader& r) {
    return Directory{r.name(), r.mode(), r.i64(), r.u32()};
  }));
  if (m.mtime_nsec >= 1000000000) m.mtime_nsec = 0;
  return m;
}

Result<Symlink> decode_symlink(std::string_view payload) {
  auto m = TRY(decode_fields<Symlink>(payload, "symlink", [](PayloadReader& r) {
    return Symlink{r.name(), r.str(kMaxName), r.i64(), r.u32()};
  }));
  if (m.name.empty() || !check_target(m.target))
    return Error{"malformed symlink frame", ErrorKind::bad_input};
  if (m.mtime_nsec >= 1000000000) m.mtime_nsec = 0;
  return m;
}

Result<Entry> decode_entry(std::string_view payload) {
  auto m = TRY(decode_fields<Entry>(payload, "entry", [](PayloadReader& r) {
    using enum EntryKind;
    return Entry{r.name(),        r.one_of({missing, file, directory, symlink, other}),
                 r.mode(),        r.u64(),
                 r.i64(),         r.xxh3(Digest::optional),
                 r.str(kMaxName), r.u32()};
  }));
  if (m.mtime_nsec >= 1000000000u) return Error{"malformed entry frame", ErrorKind::bad_input};
  if (!m.digest.empty() && m.kind != EntryKind::file)  // only regular files are hashed
    return Error{"malformed entry frame", ErrorKind::bad_input};
  if ((m.kind == EntryKind::symlink) != !m.target.empty() ||
      (!m.target.empty() && !check_target(m.target)))  // a symlink has its target, only it
    return Error{"malformed entry frame", ErrorKind::bad_input};
  return m;
}

Result<Written> decode_written(std::string_view payload) {
  return decode_fields<Written>(payload, "written", [](PayloadReader& r) {
    return Written{r.name(), r.u64()};
  });
}

Result<Failed> decode_failed(std::string_view payload) {
  auto m = TRY(decode_fields<Failed>(payload, "failed", [](PayloadReader& r) {
    return Failed{r.str(kMaxName + 1024), r.str(1024)};
  }));
  // Shown on the user's terminal: no control characters from a host.
  for (std::string* s : {&m.path, &m.reason})
    std::replace_if(
        s->begin(), s->end(),
        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
  return m;
}

Result<std::size_t> first_reply_size(std::string_view reply) {
  std::size_t at = 0;
  while (at < reply.size()) {
    auto length = TRY(payload_length(reply.substr(at)));
    if (!length || reply.size() - at - kHeader < *length) break;
    auto type = static_cast<FrameType>(reply[at]);
    at += kHeader + *length;
    if (type == FrameType::summary) return at;
  }
  return Error{"no summary", ErrorKind::bad_input};
}

Result<Summary> decode_summary(std::string_view payload) {
  return decode_fields<Summary>(payload, "summary", [](PayloadReader& r) {
    return Summary{r.u64(), r.u64(), r.u64()};
  });
}

}  // namespace pdx
