#pragma once
// The framed binary protocol between `pdx push` and `pdx agent` on a host (pdx(1), DISTRIBUTION):
// what goes over the exec channel's stdin (to the agent) and stdout (its replies).
//
//   frame   = type (1 byte) | length (4 bytes, big-endian) | payload (length bytes)
//   fields  = u8 | u32 | u64 | i64 (big-endian) | string (u32 length, bytes)
//
//   to the agent:   file (FileHeader) (data | hole)* file_end     a file, written atomically;
//                   (FileEnd)                                      a hole: zeros not sent
//                   directory (Directory)                          made if missing; its mode and
//                                                                  mtime set at done, deepest first
//                   symlink (Symlink)                              made, or its target replaced
//                   archive data* archive_end                      an archive stream, unpacked;
//                                                                  placed only at archive_end
//                   done                                           nothing more: reply summary
//   from it:        entry (Entry)* [extracted] summary             `pdx agent --list [--checksum]
//                                                                  [--set=ID]`; extracted (the ID):
//                                                                  DEST holds that set unpacked
//                   written (Written) | failed (Failed) per file, then summary (Summary);
//                   a note (text) anywhere before the summary: said as a warning
//
// A payload is at most kMaxPayload bytes. Every frame is untrusted, both ways: a host's agent may
// be broken or hostile. A frame that does not decode (unknown type, oversize, truncated fields,
// trailing bytes, an unsafe name) is an Error for that stream, never a crash.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "agent/frame_limits.h"  // sizes, check_name, check_target
#include "base/result.h"

namespace pdx {

class StreamHash;  // hash/xxh3.h

enum class FrameType : std::uint8_t {
  // to the agent
  file = 'F',
  data = 'D',
  hole = 'J',
  file_end = 'E',
  directory = 'M',
  symlink = 'K',
  archive = 'A',
  archive_end = 'Z',
  done = 'Q',
  relay_setup = 'r',  // agent/relay_frames.h
  relay_next = 'n',
  relay_go = 'g',
  // from the agent
  entry = 'L',
  extracted = 'U',  // --list --set=ID: DEST holds set ID unpacked (agent/extract_record.h)
  written = 'W',
  note = 'N',  // something the agent did unasked, to be said once (a text)
  failed = 'X',
  summary = 'S',
  relay_listening = 'l',
  relay_linked = 'k',
  relay_end = 't',
  // pdx sync (agent/delta_protocol.h)
  sig_request = 'R',
  sig_reply = 'H',
  sig_blocks = 'B',
  delta_file = 'P',
  delta_ops = 'O',
  delta_end = 'Y',
};

struct Frame {
  FrameType type{};
  std::string payload;
};
/// A frame where it lies in a reader's buffer (FrameReader).
struct FrameView {
  FrameType type{};
  std::string_view payload;
};

/// The bytes of one frame. `payload` must be at most kMaxPayload bytes.
std::string encode_frame(FrameType type, std::string_view payload);
/// One frame written whole to `fd` (an agent's reply on its standard output).
Result<void> write_frame(int fd, FrameType type, std::string_view payload);

/// Frames written to a descriptor about 64 KiB at a time: a reply of many small frames (one per
/// file) in a few writes, so in a few ssh packets, not one each. flush() before the reply's end
/// (its summary) and before the agent waits for anything.
class FrameBatch {
 public:
  explicit FrameBatch(int fd) : fd_(fd) {}
  Result<void> add(FrameType type, std::string_view payload);
  Result<void> flush();

 private:
  static constexpr std::size_t kFlushAt = 64 * 1024;
  int fd_;
  std::string pending_;
};
/// The header of a frame whose payload is `length` bytes (at most kMaxPayload), to be followed
/// by the payload: encode_frame without a copy of the payload.
std::array<char, kFrameHeaderBytes> frame_header(FrameType type, std::size_t length);

/// Frames from bytes that arrive in pieces of any size.
class FrameDecoder {
 public:
  void feed(std::string_view bytes);
  /// The next complete frame, nullopt if more bytes are needed. An Error (bad type, oversize
  /// length) is final: the stream is not trusted further.
  Result<std::optional<Frame>> next();
  /// True when bytes of an incomplete frame are held (a stream that ends now was cut short).
  bool partial() const { return buffer_.size() > start_; }

 private:
  std::string buffer_;
  std::size_t start_ = 0;  // bytes of buffer_ already decoded
};

/// The bytes a FrameReader pulls its frames from: a descriptor's (FdInput), or a relay link's
/// records (agent/record_input.h).
class FrameInput {
 public:
  virtual ~FrameInput() = default;
  /// At most `size` (> 0) bytes into `to`: how many, 0 only at the input's end. An Error when it
  /// cannot be read or broke off (never a shorter input).
  virtual Result<std::size_t> read(char* to, std::size_t size) = 0;
};

/// A descriptor's bytes (not owned), as read(2) gives them.
class FdInput final : public FrameInput {
 public:
  explicit FdInput(int fd) : fd_(fd) {}
  Result<std::size_t> read(char* to, std::size_t size) override;

 private:
  int fd_;
};

/// Frames read from a FrameInput into one buffer and handed out where they lie: no copy of a
/// payload between read(2) (or the record it came in) and the caller, and no allocation after
/// the reader's own.
class FrameReader {
 public:
  /// Reads past a frame's end (fewer reads), or never (what follows the last frame wanted is
  /// left to whoever reads the input next: an agent's next step).
  enum class ReadAhead { yes, no };
  /// Reads `input` (not owned).
  explicit FrameReader(FrameInput& input, ReadAhead ahead = ReadAhead::yes);
  /// Reads `fd` (not owned).
  explicit FrameReader(int fd);
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;
  /// The next frame, valid until the next call; nullopt when the input ends between frames. An
  /// Error: the input could not be read (its Error), ended inside a frame, or a frame does not
  /// decode (as FrameDecoder's; final too).
  Result<std::optional<FrameView>> next();

 private:
  FdInput fd_{-1};  // FrameReader(int)'s input
  FrameInput* input_;
  ReadAhead ahead_;
  std::unique_ptr<char[]> buffer_;  // room for two frames of kMaxPayload
  std::size_t start_ = 0;           // of the first byte not handed out
  std::size_t end_ = 0;             // of the end of what was read
};

enum class EntryKind : std::uint8_t {
  missing = 'n',
  file = 'f',
  directory = 'd',
  symlink = 'l',
  other = 'o'
};

struct FileHeader {
  std::string name;
  std::uint32_t mode = 0644;  // permission bits
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
  std::uint64_t size = 0;
};
/// A run of zeros in a file, not sent: a hole of a sparse file here (SEEK_HOLE), left a hole on
/// the host. Its zeros count in the file's XXH3-128 as if sent.
struct Hole {
  std::uint64_t length = 0;
};
struct FileEnd {
  // XXH3-128 of the bytes sent (hash/xxh3.h), 32 hex digits, or kAbandoned. It guards against
  // pdx's own bugs and a file that changed, not an attacker: the links are authenticated.
  std::string xxh3_128;
};
/// The digest of a file_end that abandons its file: the sender could not send it as it was (it
/// changed while read, or could not be read). It may come before the file's size; the host
/// keeps nothing of the file and reports nothing (the sender does).
inline const std::string kAbandoned(32, '0');

/// Whether a host's modification time (`have`) is the one pdx gave it (`want`): the same second
/// and the same nanoseconds as far as the host's filesystem keeps them (`have_nsec` is
/// `want_nsec` cut to a power of ten: whole seconds, microseconds..., or all of it). rsync
/// compares whole seconds: a file rewritten at its size within the second it was sent would
/// pass as sent.
bool same_mtime(std::int64_t have_sec, std::uint32_t have_nsec, std::int64_t want_sec,
                std::uint32_t want_nsec);
struct Directory {
  std::string name;
  std::uint32_t mode = 0755;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
};
/// A symlink NAME -> TARGET, made under a temporary name and renamed into place: it replaces a
/// symlink or a file there, never a directory.
struct Symlink {
  std::string name;  // never "" (DEST itself)
  std::string target;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
};
struct Entry {
  std::string name;  // "" for the listed path itself
  EntryKind kind = EntryKind::missing;
  std::uint32_t mode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  std::string digest{};  // --checksum, a regular file the agent could read: its XXH3-128 in 32
                         // hex digits (hash/hash_files.h); else ""
  std::string target{};  // a symlink's (check_target); else ""
  std::uint32_t mtime_nsec = 0;  // of mtime_sec's second
};
struct Written {
  std::string name;
  std::uint64_t bytes = 0;
};
struct Failed {
  std::string path;    // what failed, as the user would look for it (DEST/name)
  std::string reason;  // strerror-like, one line
};
struct Summary {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t failures = 0;
};

/// Adds `length` zeros to `hash`: a Hole's, on both sides.
void hash_zeros(StreamHash& hash, std::uint64_t length);

std::string encode(const FileHeader& m);
std::string encode(const FileEnd& m);
std::string encode(const Hole& m);
std::string encode(const Directory& m);
std::string encode(const Symlink& m);
std::string encode(const Entry& m);
std::string encode(const Written& m);
std::string encode(const Failed& m);
std::string encode(const Summary& m);

Result<FileHeader> decode_file_header(std::string_view payload);
Result<FileEnd> decode_file_end(std::string_view payload);
Result<Hole> decode_hole(std::string_view payload);
Result<Directory> decode_directory(std::string_view payload);
Result<Symlink> decode_symlink(std::string_view payload);
Result<Entry> decode_entry(std::string_view payload);
Result<Written> decode_written(std::string_view payload);
Result<Failed> decode_failed(std::string_view payload);
Result<Summary> decode_summary(std::string_view payload);

/// The length of the first of the replies `reply` holds one after the other (an agent that
/// answers two requests in one run: sync's signatures and then its listing): up to and with its
/// first summary frame. An Error when the frames are malformed or none of them is a summary.
Result<std::size_t> first_reply_size(std::string_view reply);

}  // namespace pdx
