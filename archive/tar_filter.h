#pragma once
// A filter on the decoded tar stream, ahead of libarchive: it walks the tar headers and
// shrinks a pax extended header over the 1 MiB libarchive 3.6 reads ("Special header too
// large") to the records pdx uses, as GNU tar would read it. Everything else passes through
// unchanged, without a copy; a stream that is not tar, or that the walk loses track of, passes
// through whole.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"

namespace pdx {

/// Where TarFilter reads from (UnpackInput in unpack, bytes in a test).
class TarSource {
 public:
  virtual ~TarSource() = default;
  /// The next bytes, valid until the next call; empty at the end.
  virtual Result<std::span<const char>> read() = 0;
  /// As lseek; returns the new offset. Called only if the reader of the filter seeks.
  virtual Result<std::uint64_t> seek(std::int64_t offset, int whence) = 0;
  /// Names the part read last, for errors.
  virtual const std::string& current_part() const = 0;
};

/// The largest pax or GNU long-name header body libarchive 3.6 reads.
constexpr std::uint64_t kTarSpecialHeaderMax = 1 << 20;

/// The records of a pax extended header ("LEN KEYWORD=VALUE\n", LEN counting the whole record),
/// split as its bytes arrive in pieces of any size. The records whose keyword `keep` accepts
/// are held, verbatim and in order; the others are only counted past, so a huge one costs no
/// memory. Parsing stops at the first malformed record, or once the held records pass
/// `held_max`.
class PaxRecords {
 public:
  using Keep = bool (*)(std::string_view keyword);
  /// body_size: the bytes that will be fed; record_max: a longer record stops parsing
  /// (libarchive ignores it and what follows).
  PaxRecords(std::uint64_t body_size, Keep keep, std::uint64_t record_max, std::size_t held_max);

  void feed(std::span<const char> bytes);
  /// Why parsing stopped, if it did: a malformed record, or held records over held_max.
  const std::optional<std::string>& problem() const { return problem_; }
  bool too_large() const { return too_large_; }
  /// The held records, each whole.
  const std::string& held() const { return held_; }
  /// The value of the last "size" record held, as libarchive reads it.
  std::optional<std::int64_t> size() const { return size_; }

 private:
  enum class State { length, keyword, value, stopped };
  void stop(std::string why);
  void end_record();

  Keep keep_;
  std::uint64_t left_;  // body bytes not yet fed
  std::uint64_t record_max_;
  std::size_t held_max_;
  State state_ = State::length;
  std::uint64_t length_ = 0;  // of the current record
  std::uint64_t at_ = 0;      // bytes of the current record seen
  std::string record_;        // its bytes so far, while it may be held
  std::string keyword_;       // its keyword (the first kKeywordMax bytes)
  std::size_t keyword_length_ = 0;
  bool holding_ = false;      // the current record is kept
  std::size_t value_at_ = 0;  // where its value starts in record_
  std::string held_;
  std::optional<std::int64_t> size_;
  std::optional<std::string> problem_;
  bool too_large_ = false;
};

/// The filter. Reads the source as it is read itself; holds at most one 512-byte header and
/// the records kept from a pax header being shrunk (under 1 MiB).
class TarFilter {
 public:
  explicit TarFilter(TarSource& source) : source_(source) {}

  /// The next bytes of the filtered stream, valid until the next call; empty at the end. An
  /// Error (an oversize pax header that cannot be shrunk, malformed or cut short) names the part
  /// and the header's offset.
  Result<std::span<const char>> read();
  /// As lseek, in offsets of the filtered stream. Forward from the current offset always works
  /// (libarchive's skip of entry data); anything else only while nothing was rewritten, and the
  /// walk goes on only from offset 0 (elsewhere the rest passes unchanged).
  Result<std::uint64_t> seek(std::int64_t offset, int whence);

 private:
  // The walk, one 512-byte block looked at after each stretch of data passed:
  //
  //   header --(entry, special header: skip its data, padded)--> header
  //   header --(GNU old sparse, isextended)--> extension --(isextended)--> extension
  //   extension --(last one: skip the entry's data)--> header
  //   header --(oversize pax: shrink)--> header
  //   any --(end of archive, bad checksum, a size libarchive refuses, unsure)--> passive
  enum class Expect { header, extension, passive };
  enum class Format { unknown, old, ustar, gnu, pax };  // libarchive's archive_format

  // Looks at the 512-byte block at the walk's position; true if it is a pax header to shrink.
  bool inspect(const char* block);
  bool inspect_header(const char* header);
  // Passes `n` bytes of the current run: fed to the pax scan while it lasts.
  void pass(const char* data, std::uint64_t n);
  Result<std::span<const char>> shrink(const char* header);
  std::span<const char> take(std::size_t n);
  Error error(const std::string& what) const;

  TarSource& source_;
  std::span<const char> chunk_;  // what is left of the source's last bytes
  bool ended_ = false;
  std::uint64_t in_offset_ = 0;   // source offset of chunk_'s start
  std::uint64_t out_offset_ = 0;  // bytes handed out (and skipped)
  bool rewritten_ = false;        // the offsets differ
  std::array<char, 512> block_{};
  std::size_t block_fill_ = 0;
  std::string out_;  // a shrunk header

  Expect expect_ = Expect::header;
  Format format_ = Format::unknown;
  std::uint64_t skip_ = 0;  // bytes to pass before the next block to inspect
  std::uint64_t data_after_extensions_ = 0;
  std::optional<PaxRecords> scan_;  // of a pax header passed through, for its "size"
  std::uint64_t scan_left_ = 0;
  std::optional<std::int64_t> pax_size_;  // the next entry's data size, from a pax header
};

}  // namespace pdx
