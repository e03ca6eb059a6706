#include "distribute/agent_protocol.h"

#include <algorithm>

namespace pdx {

namespace {

constexpr std::size_t kHeader = 5;  // type byte + u32 length

bool known_type(std::uint8_t t) {
  constexpr FrameType kTypes[] = {
      FrameType::file,      FrameType::data,        FrameType::file_end,   FrameType::directory,
      FrameType::archive,   FrameType::archive_end, FrameType::done,       FrameType::entry,
      FrameType::written,   FrameType::failed,      FrameType::summary,    FrameType::sig_request,
      FrameType::sig_reply, FrameType::sig_blocks,  FrameType::delta_file, FrameType::delta_ops,
      FrameType::delta_end,
  };
  return std::any_of(std::begin(kTypes), std::end(kTypes),
                     [t](FrameType k) { return static_cast<std::uint8_t>(k) == t; });
}

void put_uint(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_uint(std::string_view bytes) {
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// Appends fields to a payload.
class Fields {
 public:
  Fields& u8(std::uint8_t v) { return put(v, 1); }
  Fields& u32(std::uint32_t v) { return put(v, 4); }
  Fields& u64(std::uint64_t v) { return put(v, 8); }
  Fields& i64(std::int64_t v) { return put(static_cast<std::uint64_t>(v), 8); }
  Fields& str(std::string_view s) {
    put(s.size(), 4);
    out_.append(s);
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  Fields& put(std::uint64_t v, int bytes) {
    put_uint(out_, v, bytes);
    return *this;
  }
  std::string out_;
};

// Reads fields from an untrusted payload: each read checks there are enough bytes; the first
// failure sticks, and end() fails unless every byte was read.
class Reader {
 public:
  explicit Reader(std::string_view payload, const char* what) : in_(payload), what_(what) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(take(4)); }
  std::uint64_t u64() { return take(8); }
  std::int64_t i64() { return static_cast<std::int64_t>(take(8)); }
  std::string str(std::size_t max) {
    std::uint64_t n = take(4);
    if (!ok_ || n > max || n > in_.size()) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  Result<void> end() const {
    if (ok_ && in_.empty()) return {};
    return Error{std::string("malformed ") + what_ + " frame", ErrorKind::bad_input};
  }

 private:
  std::uint64_t take(std::size_t n) {
    if (!ok_ || in_.size() < n) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = get_uint(in_.substr(0, n));
    in_.remove_prefix(n);
    return v;
  }
  std::string_view in_;
  const char* what_;
  bool ok_ = true;
};

Result<std::string> checked_name(std::string name) {
  TRY(check_name(name));
  return name;
}

}  // namespace

std::string encode_frame(FrameType type, std::string_view payload) {
  std::string out;
  out.reserve(kHeader + payload.size());
  out.push_back(static_cast<char>(type));
  put_uint(out, payload.size(), 4);
  out.append(payload);
  return out;
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
  auto type = static_cast<std::uint8_t>(held[0]);
  if (!known_type(type))
    return Error{"bad frame type " + std::to_string(type), ErrorKind::bad_input};
  if (held.size() < kHeader) return std::optional<Frame>();
  std::uint64_t length = get_uint(held.substr(1, 4));
  if (length > kMaxPayload)
    return Error{"frame of " + std::to_string(length) + " bytes is over the limit",
                 ErrorKind::bad_input};
  if (held.size() < kHeader + length) return std::optional<Frame>();
  Frame frame{static_cast<FrameType>(type), std::string(held.substr(kHeader, length))};
  start_ += kHeader + length;
  return std::optional<Frame>(std::move(frame));
}

Result<void> check_name(std::string_view name) {
  auto refuse = [&](const char* why) {
    std::string shown(name.substr(0, 200));
    std::replace(shown.begin(), shown.end(), '\0', '?');
    return Error{"unsafe name '" + shown + "': " + why, ErrorKind::bad_input};
  };
  if (name.empty()) return {};
  if (name.size() > kMaxName) return refuse("too long");
  if (name.find('\0') != std::string_view::npos) return refuse("holds a NUL byte");
  if (name.front() == '/') return refuse("absolute");
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = std::min(name.find('/', start), name.size());
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == ".") return refuse("empty or '.' component");
    if (part == "..") return refuse("'..' component");
    start = end + 1;
  }
  return {};
}

std::string encode(const FileHeader& m) {
  return Fields().str(m.name).u32(m.mode).i64(m.mtime_sec).u32(m.mtime_nsec).u64(m.size).take();
}
std::string encode(const FileEnd& m) {
  return Fields().str(m.sha256).take();
}
std::string encode(const Directory& m) {
  return Fields().str(m.name).u32(m.mode).take();
}
std::string encode(const Entry& m) {
  return Fields()
      .str(m.name)
      .u8(static_cast<std::uint8_t>(m.kind))
      .u32(m.mode)
      .u64(m.size)
      .i64(m.mtime_sec)
      .take();
}
std::string encode(const Written& m) {
  return Fields().str(m.name).u64(m.bytes).take();
}
std::string encode(const Failed& m) {
  return Fields().str(m.path).str(m.reason).take();
}
std::string encode(const Summary& m) {
  return Fields().u64(m.files).u64(m.bytes).u64(m.failures).take();
}

Result<FileHeader> decode_file_header(std::string_view payload) {
  Reader r(payload, "file");
  FileHeader m;
  m.name = r.str(kMaxName);
  m.mode = r.u32() & 07777;
  m.mtime_sec = r.i64();
  m.mtime_nsec = r.u32();
  m.size = r.u64();
  if (m.mtime_nsec >= 1000000000) m.mtime_nsec = 0;
  TRY(r.end());
  m.name = TRY(checked_name(std::move(m.name)));
  return m;
}

Result<FileEnd> decode_file_end(std::string_view payload) {
  Reader r(payload, "file end");
  FileEnd m{r.str(64)};
  TRY(r.end());
  if (m.sha256.size() != 64 || m.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    return Error{"malformed file end frame", ErrorKind::bad_input};
  return m;
}

Result<Directory> decode_directory(std::string_view payload) {
  Reader r(payload, "directory");
  Directory m;
  m.name = r.str(kMaxName);
  m.mode = r.u32() & 07777;
  TRY(r.end());
  m.name = TRY(checked_name(std::move(m.name)));
  return m;
}

Result<Entry> decode_entry(std::string_view payload) {
  Reader r(payload, "entry");
  Entry m;
  m.name = r.str(kMaxName);
  auto kind = r.u8();
  m.mode = r.u32() & 07777;
  m.size = r.u64();
  m.mtime_sec = r.i64();
  TRY(r.end());
  switch (static_cast<EntryKind>(kind)) {
    case EntryKind::missing:
    case EntryKind::file:
    case EntryKind::directory:
    case EntryKind::other:
      m.kind = static_cast<EntryKind>(kind);
      break;
    default:
      return Error{"malformed entry frame", ErrorKind::bad_input};
  }
  m.name = TRY(checked_name(std::move(m.name)));
  return m;
}

Result<Written> decode_written(std::string_view payload) {
  Reader r(payload, "written");
  Written m;
  m.name = r.str(kMaxName);
  m.bytes = r.u64();
  TRY(r.end());
  m.name = TRY(checked_name(std::move(m.name)));
  return m;
}

Result<Failed> decode_failed(std::string_view payload) {
  Reader r(payload, "failed");
  Failed m;
  m.path = r.str(kMaxName + 1024);
  m.reason = r.str(1024);
  TRY(r.end());
  // Shown on the user's terminal: no control characters from a host.
  for (std::string* s : {&m.path, &m.reason})
    std::replace_if(
        s->begin(), s->end(),
        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
  return m;
}

Result<Summary> decode_summary(std::string_view payload) {
  Reader r(payload, "summary");
  Summary m;
  m.files = r.u64();
  m.bytes = r.u64();
  m.failures = r.u64();
  TRY(r.end());
  return m;
}

}  // namespace pdx
