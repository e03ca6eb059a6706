#include "archive/tar_filter.h"

#include <cstdio>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

namespace pdx {

namespace {

constexpr std::size_t kBlock = 512;
// The header fields the walk reads (POSIX ustar, and GNU's old sparse map).
constexpr std::size_t kSizeAt = 124, kSizeLength = 12;
constexpr std::size_t kChecksumAt = 148, kChecksumLength = 8;
constexpr std::size_t kTypeAt = 156, kMagicAt = 257;
constexpr std::size_t kGnuSparseAt = 386, kGnuIsExtendedAt = 482, kExtensionIsExtendedAt = 504;
// libarchive ignores a pax record longer than this, and the records after it.
constexpr std::uint64_t kLibarchiveRecordMax = 999999;
// Longer keywords are none pdx knows; they are not held.
constexpr std::size_t kKeywordMax = 1024;

// A number in a header field as libarchive reads it (tar_atol): base-256 when the high bit of
// the first byte is set, else octal after blanks, up to the first other character.
// INT64_MAX (or INT64_MIN) on overflow.
std::int64_t field_number(const char* field, std::size_t length) {
  const auto* p = reinterpret_cast<const unsigned char*>(field);
  if (*p & 0x80) {
    unsigned char neg = (*p & 0x40) ? 0xff : 0;
    unsigned char c = neg ? (*p | 0x80) : (*p & 0x7f);
    std::uint64_t value = neg ? ~std::uint64_t{0} : 0;
    for (; length > sizeof(std::int64_t); --length, c = *++p) {
      if (c != neg)
        return neg ? std::numeric_limits<std::int64_t>::min()
                   : std::numeric_limits<std::int64_t>::max();
    }
    if ((c ^ neg) & 0x80) {
      return neg ? std::numeric_limits<std::int64_t>::min()
                 : std::numeric_limits<std::int64_t>::max();
    }
    for (; length > 1; --length, c = *++p) value = (value << 8) | c;
    return static_cast<std::int64_t>((value << 8) | c);
  }
  std::size_t i = 0;
  while (i < length && (field[i] == ' ' || field[i] == '\t')) ++i;
  std::int64_t value = 0;
  for (; i < length && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (value > (std::numeric_limits<std::int64_t>::max() >> 3)) {
      return std::numeric_limits<std::int64_t>::max();
    }
    value = value * 8 + (field[i] - '0');
  }
  return value;
}

// A pax value as libarchive reads a number from it (tar_atol10 up to the first NUL): blanks,
// an optional '-', digits up to the first other character; saturated on overflow.
std::int64_t decimal(std::string_view text) {
  text = text.substr(0, text.find('\0'));
  std::size_t i = text.find_first_not_of(" \t");
  if (i == std::string_view::npos) return 0;
  bool negative = text[i] == '-';
  if (negative) ++i;
  std::int64_t value = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    int digit = text[i] - '0';
    if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10) {
      return negative ? std::numeric_limits<std::int64_t>::min()
                      : std::numeric_limits<std::int64_t>::max();
    }
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

// libarchive's check: an octal checksum field equal to the sum of the header's bytes (the
// field counted as blanks), unsigned or, as some old tars wrote it, signed.
bool checksum_ok(const char* header) {
  for (std::size_t i = kChecksumAt; i < kChecksumAt + kChecksumLength; ++i) {
    char c = header[i];
    if (c != ' ' && c != '\0' && (c < '0' || c > '7')) return false;
  }
  std::int64_t expected = field_number(header + kChecksumAt, kChecksumLength);
  std::int64_t sum_unsigned = 8 * ' ', sum_signed = 8 * ' ';
  for (std::size_t i = 0; i < kBlock; ++i) {
    if (i == kChecksumAt) i += kChecksumLength;
    sum_unsigned += static_cast<unsigned char>(header[i]);
    sum_signed += static_cast<signed char>(header[i]);
  }
  return expected == sum_unsigned || expected == sum_signed;
}

std::uint64_t padded(std::int64_t size) {
  return (static_cast<std::uint64_t>(size) + kBlock - 1) & ~std::uint64_t{kBlock - 1};
}

bool is_size(std::string_view keyword) {
  return keyword == "size";
}

// The pax keywords that change what pdx unpacks (those libarchive's pax_attribute reads, less
// extended attributes and ACLs, which pdx does not restore, as GNU tar does not by default).
// Others -- SCHILY.xattr.*, LIBARCHIVE.xattr.*, SCHILY.acl.*, comment, charset, unknown
// keywords -- are dropped from a header being shrunk.
bool pdx_uses(std::string_view keyword) {
  static constexpr std::string_view kUsed[] = {"atime",
                                               "ctime",
                                               "gid",
                                               "gname",
                                               "hdrcharset",
                                               "linkpath",
                                               "mtime",
                                               "path",
                                               "size",
                                               "uid",
                                               "uname",
                                               "LIBARCHIVE.creationtime",
                                               "SCHILY.dev",
                                               "SCHILY.devmajor",
                                               "SCHILY.devminor",
                                               "SCHILY.fflags",
                                               "SCHILY.ino",
                                               "SCHILY.nlink",
                                               "SCHILY.realsize",
                                               "SUN.holesdata"};
  return keyword.starts_with("GNU.sparse") ||
         std::find(std::begin(kUsed), std::end(kUsed), keyword) != std::end(kUsed);
}

}  // namespace

PaxRecords::PaxRecords(std::uint64_t body_size, Keep keep, std::uint64_t record_max,
                       std::size_t held_max)
    : keep_(keep), left_(body_size), record_max_(record_max), held_max_(held_max) {}

void PaxRecords::stop(std::string why) {
  if (!problem_) problem_ = std::move(why);
  state_ = State::stopped;
}

void PaxRecords::feed(std::span<const char> bytes) {
  std::size_t i = 0;
  while (i < bytes.size() && state_ != State::stopped) {
    char c = bytes[i];
    switch (state_) {
      case State::length:
        ++i, ++at_;
        if (c == ' ') {
          // The record must fit in the body and hold at least "K=\n".
          if (length_ + i > left_ + at_ || length_ < at_ + 3) {
            stop("a record length of " + std::to_string(length_) + " that does not fit");
          } else if (length_ > record_max_) {
            stop("a record of " + std::to_string(length_) + " bytes");
          } else {
            record_ += c;
            state_ = State::keyword;
          }
        } else if (c >= '0' && c <= '9' && length_ < (std::uint64_t{1} << 50)) {
          length_ = length_ * 10 + static_cast<std::uint64_t>(c - '0');
          record_ += c;
        } else {
          stop("a record that does not start with its length");
        }
        break;
      case State::keyword:
        ++i, ++at_;
        if (at_ == length_) {
          stop("a record without a value");
        } else if (c == '=' && keyword_length_ > 0) {
          holding_ = keyword_length_ <= kKeywordMax && keep_(keyword_);
          if (holding_) record_ += keyword_ + '=';
          value_at_ = record_.size();
          state_ = State::value;
        } else if (c == '=' || c == '\0') {
          stop("a record without a keyword");
        } else if (++keyword_length_ <= kKeywordMax) {
          keyword_ += c;
        }
        break;
      case State::value: {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(length_ - at_, bytes.size() - i));
        if (holding_) {
          record_.append(bytes.data() + i, n);
          if (held_.size() + record_.size() > held_max_) {
            too_large_ = true;
            stop("records over " + std::to_string(held_max_) + " bytes");
            break;
          }
        }
        i += n, at_ += n;
        if (at_ == length_) {
          if (bytes[i - 1] != '\n') {
            stop("a record that does not end with a newline");
          } else {
            end_record();
          }
        }
        break;
      }
      case State::stopped:
        break;
    }
  }
  left_ -= std::min<std::uint64_t>(left_, bytes.size());
  if (left_ == 0 && state_ != State::stopped && at_ != 0) stop("a record cut short");
}

void PaxRecords::end_record() {
  if (holding_) {
    if (keyword_ == "size") {
      size_ = decimal(std::string_view(record_).substr(value_at_, record_.size() - value_at_ - 1));
    }
    held_ += record_;
  }
  record_.clear();
  keyword_.clear();
  keyword_length_ = 0;
  holding_ = false;
  state_ = State::length;
  length_ = at_ = 0;
}

std::span<const char> TarFilter::take(std::size_t n) {
  auto taken = chunk_.first(n);
  chunk_ = chunk_.subspan(n);
  in_offset_ += n;
  out_offset_ += n;
  return taken;
}

Error TarFilter::error(const std::string& what) const {
  return Error{source_.current_part() + ": " + what, ErrorKind::bad_input};
}

Result<std::span<const char>> TarFilter::read() {
  for (;;) {
    if (chunk_.empty()) {
      if (!ended_) chunk_ = TRY(source_.read());
      if (chunk_.empty()) {
        ended_ = true;
        // A header cut short passes as it is: libarchive says the archive is truncated.
        auto rest = std::span<const char>(block_.data(), block_fill_);
        out_offset_ += block_fill_;
        block_fill_ = 0;
        return rest;
      }
    }
    if (expect_ == Expect::passive && block_fill_ == 0) return take(chunk_.size());
    // The bytes that pass unchanged: data, and headers that need no change.
    std::size_t run = 0;
    while (block_fill_ == 0 && run < chunk_.size()) {
      if (skip_ > 0) {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, chunk_.size() - run));
        pass(chunk_.data() + run, n);
        run += n;
      } else if (chunk_.size() - run < kBlock) {
        break;
      } else if (inspect(chunk_.data() + run)) {
        if (run > 0) return take(run);
        std::memcpy(block_.data(), chunk_.data(), kBlock);
        chunk_ = chunk_.subspan(kBlock);
        in_offset_ += kBlock;
        return shrink(block_.data());
      } else {
        run += kBlock;
        if (expect_ == Expect::passive) run = chunk_.size();
      }
    }
    if (run > 0) return take(run);
    // A block across the end of the source's bytes: gathered, then looked at.
    auto n = std::min(kBlock - block_fill_, chunk_.size());
    std::memcpy(block_.data() + block_fill_, chunk_.data(), n);
    block_fill_ += n;
    chunk_ = chunk_.subspan(n);
    in_offset_ += n;
    if (block_fill_ < kBlock) continue;
    block_fill_ = 0;
    if (expect_ != Expect::passive && inspect(block_.data())) return shrink(block_.data());
    out_offset_ += kBlock;
    return std::span<const char>(block_.data(), kBlock);
  }
}

void TarFilter::pass(const char* data, std::uint64_t n) {
  if (scan_) {
    auto scanned = std::min(n, scan_left_);
    scan_->feed({data, static_cast<std::size_t>(scanned)});
    scan_left_ -= scanned;
    if (scan_left_ == 0) {
      pax_size_ = scan_->size();
      scan_.reset();
    }
  }
  skip_ -= n;
}

bool TarFilter::inspect(const char* block) {
  if (expect_ == Expect::extension) {  // GNU's old sparse map goes on in this block
    if (block[kExtensionIsExtendedAt] == 0) {
      expect_ = Expect::header;
      skip_ = data_after_extensions_;
    }
    return false;
  }
  return inspect_header(block);
}

// Where the next header is, as libarchive 3.6 finds it (archive_read_support_format_tar.c:
// tar_read_header, header_common, header_gnutar, gnu_sparse_old_read, pax_attribute "size").
// Anything the walk is unsure of makes it stop looking: the rest passes unchanged.
bool TarFilter::inspect_header(const char* header) {
  if (std::all_of(header, header + kBlock, [](char c) { return c == 0; }) || !checksum_ok(header)) {
    expect_ = Expect::passive;  // the end of the archive, or libarchive stops here
    return false;
  }
  char type = header[kTypeAt];
  std::int64_t size = field_number(header + kSizeAt, kSizeLength);
  if (size < 0 || size == std::numeric_limits<std::int64_t>::max()) {
    expect_ = Expect::passive;  // libarchive refuses it
    return false;
  }
  switch (type) {
    case 'x':
    case 'X':
    case 'g':
      format_ = Format::pax;
      if (static_cast<std::uint64_t>(size) > kTarSpecialHeaderMax) return true;
      skip_ = padded(size);
      if (type != 'g') {  // the last pax header before an entry is the one that counts
        pax_size_.reset();
        if (size > 0) {
          scan_.emplace(static_cast<std::uint64_t>(size), is_size, kLibarchiveRecordMax,
                        kTarSpecialHeaderMax);
          scan_left_ = static_cast<std::uint64_t>(size);
        }
      }
      return false;
    case 'A':
      format_ = Format::pax;
      [[fallthrough]];
    case 'K':
    case 'L':
      if (static_cast<std::uint64_t>(size) > kTarSpecialHeaderMax) expect_ = Expect::passive;
      skip_ = padded(size);
      return false;
    case 'V':  // no body
      return false;
    default:
      break;
  }
  bool gnu = std::memcmp(header + kMagicAt, "ustar  \0", 8) == 0;
  if (gnu) {
    format_ = Format::gnu;
  } else if (std::memcmp(header + kMagicAt, "ustar", 5) == 0) {
    if (format_ != Format::pax) format_ = Format::ustar;
  } else {
    format_ = Format::old;
  }
  std::int64_t data = size;
  if (std::strchr("23456", type) && type != 0) data = 0;
  if (type == '1' && size > 0 && format_ != Format::pax) {
    if (format_ == Format::ustar && !pax_size_) {  // libarchive guesses from what follows
      expect_ = Expect::passive;
      return false;
    }
    data = 0;
  }
  if (pax_size_) data = *pax_size_;
  pax_size_.reset();
  if (data < 0 || data == std::numeric_limits<std::int64_t>::max()) {
    expect_ = Expect::passive;
    return false;
  }
  if (gnu && header[kGnuSparseAt] != 0 && header[kGnuIsExtendedAt] != 0) {
    expect_ = Expect::extension;
    data_after_extensions_ = padded(data);
    skip_ = 0;
  } else {
    skip_ = padded(data);
  }
  return false;
}

// A pax header over libarchive's limit (its 512 bytes in `header`, its body still to read):
// read whole, and handed on with only the records pdx uses, its size and checksum rewritten.
Result<std::span<const char>> TarFilter::shrink(const char* header) {
  std::uint64_t at = in_offset_ - kBlock;
  std::string where = "the pax header at byte " + std::to_string(at);
  std::int64_t size = field_number(header + kSizeAt, kSizeLength);
  PaxRecords records(static_cast<std::uint64_t>(size), pdx_uses,
                     std::numeric_limits<std::uint64_t>::max(), kTarSpecialHeaderMax);
  std::uint64_t body_left = static_cast<std::uint64_t>(size);
  std::uint64_t padding = padded(size) - body_left;
  while (body_left + padding > 0) {
    if (chunk_.empty() && !ended_) chunk_ = TRY(source_.read());
    if (chunk_.empty()) {
      ended_ = true;
      return error("the archive ends early in " + where + " (" + std::to_string(size) +
                   " bytes); this part is truncated or parts after it are missing");
    }
    auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_.size(), body_left + padding));
    auto fed = static_cast<std::size_t>(std::min<std::uint64_t>(n, body_left));
    records.feed(chunk_.first(fed));
    if (records.too_large()) {
      return error(where + " holds more than 1 MiB of records pdx needs (path, link target, " +
                   "owner, times, sparse map), more than libarchive reads: pdx cannot unpack " +
                   "this archive (GNU tar can)");
    }
    if (records.problem()) {
      return error(where + " is malformed (" + *records.problem() + "): the archive is corrupt");
    }
    body_left -= fed;
    padding -= n - fed;
    chunk_ = chunk_.subspan(n);
    in_offset_ += n;
  }
  out_.assign(header, kBlock);
  const std::string& held = records.held();
  snprintf(out_.data() + kSizeAt, kSizeLength, "%011llo",
           static_cast<unsigned long long>(held.size()));
  std::memset(out_.data() + kChecksumAt, ' ', kChecksumLength);
  unsigned sum = 0;
  for (char c : out_) sum += static_cast<unsigned char>(c);
  snprintf(out_.data() + kChecksumAt, kChecksumLength, "%06o", sum);
  out_[kChecksumAt + 7] = ' ';
  out_ += held;
  out_.resize(kBlock + padded(static_cast<std::int64_t>(held.size())), '\0');
  if (header[kTypeAt] != 'g') pax_size_ = records.size();
  rewritten_ = true;
  skip_ = 0;
  out_offset_ += out_.size();
  return std::span<const char>(out_);
}

Result<std::uint64_t> TarFilter::seek(std::int64_t offset, int whence) {
  if (whence == SEEK_CUR && offset >= 0) {  // libarchive skipping an entry's data
    auto n = static_cast<std::uint64_t>(offset);
    if (n <= skip_ && !scan_) {
      skip_ -= n;
    } else {
      expect_ = Expect::passive;
    }
    auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n, chunk_.size()));
    chunk_ = chunk_.subspan(k);
    in_offset_ += k;
    if (n > k) {
      TRY(source_.seek(static_cast<std::int64_t>(n - k), SEEK_CUR));
      in_offset_ += n - k;
    }
    out_offset_ += n;
    return out_offset_;
  }
  if (rewritten_) {
    return Error{source_.current_part() +
                 ": cannot seek back in a tar stream after a pax header pdx shrank"};
  }
  chunk_ = {};
  ended_ = false;
  block_fill_ = 0;
  auto now = TRY(source_.seek(offset, whence));
  in_offset_ = out_offset_ = now;
  // Back at the start (after a format's look at the end, say) the walk starts afresh; elsewhere
  // it cannot know where headers are.
  expect_ = now == 0 ? Expect::header : Expect::passive;
  format_ = Format::unknown;
  skip_ = 0;
  scan_.reset();
  pax_size_.reset();
  return now;
}

}  // namespace pdx
