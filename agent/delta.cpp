#include "agent/delta.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include "hash/weak_sum.h"

namespace pdx {

namespace {

constexpr std::size_t kReadSize = 1024 * 1024;
constexpr std::uint32_t kNone = UINT32_MAX;

// pread until `size` bytes are in, or the file ends; an Error for a failed read.
Result<std::size_t> read_at(int fd, unsigned char* data, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

// The signatures of blocks [first, last) into `out`.
Result<void> sign_range(int fd, const Signature& s, std::uint64_t first, std::uint64_t last,
                        std::vector<BlockSum>& out) {
  std::size_t per_read = std::max<std::size_t>(1, kReadSize / s.block);
  std::vector<unsigned char> buffer(per_read * s.block);
  RollingSum sum;
  for (std::uint64_t b = first; b < last;) {
    std::uint64_t n = std::min<std::uint64_t>(per_read, last - b);
    std::uint64_t offset = b * s.block;
    std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(n * s.block, s.size - offset));
    std::size_t got = TRY(read_at(fd, buffer.data(), want, offset));
    if (got < want) return Error{"changed while read (shorter)"};
    for (std::uint64_t k = 0; k < n; ++k) {
      std::size_t start = static_cast<std::size_t>(k * s.block);
      std::size_t length = std::min<std::size_t>(s.block, want - start);
      sum.reset(buffer.data() + start, length);
      out[b + k] = BlockSum{sum.value(), strong_hash(buffer.data() + start, length)};
    }
    b += n;
  }
  return {};
}

// The blocks of a signature by weak sum: a power-of-two table of chain heads, chained by index.
class BlockIndex {
 public:
  explicit BlockIndex(const Signature& s) : next_(s.blocks.size(), kNone) {
    int bits = 10;
    while ((std::size_t{1} << bits) < 2 * s.blocks.size() && bits < 31) ++bits;
    shift_ = 32 - bits;
    heads_.assign(std::size_t{1} << bits, kNone);
    for (std::size_t i = s.blocks.size(); i-- > 0;) {  // chains in block order
      std::uint32_t& head = heads_[slot(s.blocks[i].weak)];
      next_[i] = head;
      head = static_cast<std::uint32_t>(i);
    }
  }
  std::uint32_t first(std::uint32_t weak) const { return heads_[slot(weak)]; }
  std::uint32_t next(std::uint32_t i) const { return next_[i]; }

 private:
  std::size_t slot(std::uint32_t weak) const { return (weak * 0x9E3779B1u) >> shift_; }
  std::vector<std::uint32_t> heads_, next_;
  int shift_ = 22;
};

// compute_delta's state: the window over the new file and the ops not yet sent.
class Matcher {
 public:
  Matcher(int in, const Signature& basis, DeltaSink& sink)
      : in_(in),
        basis_(basis),
        sink_(sink),
        index_(basis),
        block_(basis.block),
        buffer_(kMaxLiteral + block_ + 1 + kReadSize) {
    if (!basis.blocks.empty())
      last_length_ = static_cast<std::uint32_t>(basis.size - (basis.blocks.size() - 1) * block_);
  }

  Result<DeltaResult> run() {
    RollingSum sum;
    bool summed = false;
    for (;;) {
      TRY(fill(block_ + 1));  // the window and the byte that rolls in next
      if (end_ - pos_ < block_) break;
      if (!summed) sum.reset(&buffer_[pos_], block_);
      summed = true;
      if (auto m = find(sum.value(), block_, /*last=*/false)) {
        TRY(flush_literal(pos_));
        TRY(copy(*m));
        pos_ += block_;
        literal_ = pos_;
        summed = false;
        continue;
      }
      if (end_ - pos_ == block_) break;  // the input ended: no byte to roll in
      sum.roll(buffer_[pos_], buffer_[pos_ + block_]);
      ++pos_;
      if (pos_ - literal_ >= kMaxLiteral) TRY(flush_literal(pos_));
    }
    // The short last block of the old file can only match at the new file's end.
    if (last_length_ && last_length_ < block_ && end_ - pos_ >= last_length_) {
      std::size_t at = end_ - last_length_;
      RollingSum tail;
      tail.reset(&buffer_[at], last_length_);
      pos_ = at;
      if (auto m = find(tail.value(), last_length_, /*last=*/true)) {
        TRY(flush_literal(at));
        TRY(copy(*m));
        literal_ = end_;
      }
    }
    TRY(flush_literal(end_));
    TRY(flush_copy());
    result_.hash = hash_.digest();
    return result_;
  }

 private:
  // Reads until `need` bytes from pos_ are held or the input ends, moving the pending literal
  // and the window to the front of the buffer when it is full.
  Result<void> fill(std::size_t need) {
    while (!eof_ && end_ - pos_ < need) {
      if (end_ == buffer_.size()) {
        std::memmove(buffer_.data(), buffer_.data() + literal_, end_ - literal_);
        pos_ -= literal_;
        end_ -= literal_;
        literal_ = 0;
      }
      ssize_t n = ::read(in_, buffer_.data() + end_, buffer_.size() - end_);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
      if (n == 0) {
        eof_ = true;
        break;
      }
      hash_.update(buffer_.data() + end_, static_cast<std::size_t>(n));
      result_.size += static_cast<std::uint64_t>(n);
      end_ += static_cast<std::size_t>(n);
    }
    return {};
  }

  // The block whose sums are the window's (`length` bytes at pos_): the one right after the
  // last copied first, as rsync prefers, so that runs stay runs.
  std::optional<std::uint32_t> find(std::uint32_t weak, std::size_t length, bool last) {
    std::optional<StrongHash> strong;
    std::optional<std::uint32_t> found;
    for (std::uint32_t i = index_.first(weak); i != kNone; i = index_.next(i)) {
      if (basis_.blocks[i].weak != weak) continue;
      bool is_last = i + 1 == basis_.blocks.size();
      if (is_last != last && !(is_last && last_length_ == block_)) continue;
      if (!strong) strong = strong_hash(&buffer_[pos_], length);
      if (basis_.blocks[i].strong != *strong) continue;
      if (i == next_) return i;
      if (!found) found = i;
    }
    return found;
  }

  Result<void> copy(std::uint64_t block) {
    if (copy_count_ && copy_first_ + copy_count_ == block) {
      ++copy_count_;
    } else {
      TRY(flush_copy());
      copy_first_ = block;
      copy_count_ = 1;
    }
    next_ = block + 1;
    ++result_.copied_blocks;
    return {};
  }

  Result<void> flush_copy() {
    if (!copy_count_) return {};
    TRY(sink_.copy(copy_first_, copy_count_));
    copy_count_ = 0;
    return {};
  }

  // The bytes from literal_ up to `to`, after the copy they follow.
  Result<void> flush_literal(std::size_t to) {
    if (to <= literal_) return {};
    TRY(flush_copy());
    while (literal_ < to) {
      std::size_t n = std::min(kMaxLiteral, to - literal_);
      TRY(sink_.literal(std::string_view(reinterpret_cast<const char*>(&buffer_[literal_]), n)));
      literal_ += n;
      result_.literal_bytes += n;
    }
    return {};
  }

  int in_;
  const Signature& basis_;
  DeltaSink& sink_;
  BlockIndex index_;
  std::size_t block_;
  std::uint32_t last_length_ = 0;  // of the old file's last block; 0: no blocks
  std::vector<unsigned char> buffer_;
  std::size_t literal_ = 0, pos_ = 0, end_ = 0;  // pending literal, window, data held
  bool eof_ = false;
  std::uint64_t copy_first_ = 0, copy_count_ = 0;  // the run of blocks not yet sent
  std::uint64_t next_ = 0;                         // the block after the last match
  StreamHash hash_;
  DeltaResult result_;
};

}  // namespace

std::uint32_t block_length(std::uint64_t size) {
  auto root = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(size)));
  root &= ~std::uint64_t{7};
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(root, kMinBlock, kMaxBlock));
}

std::uint64_t block_count(std::uint64_t size, std::uint32_t block) {
  return block ? size / block + (size % block != 0) : 0;
}

void RollingSum::reset(const unsigned char* data, std::size_t size) {
  WeakSums sums = weak_sums(data, size);
  s1_ = sums.s1;
  s2_ = sums.s2;
  length_ = static_cast<std::uint32_t>(size);
}

Result<Signature> compute_signature(int fd, std::uint64_t size, unsigned threads) {
  Signature s;
  s.size = size;
  s.block = block_length(size);
  std::uint64_t n = block_count(size, s.block);
  s.blocks.resize(static_cast<std::size_t>(n));
  // At least 1 MiB a thread: below that, starting threads costs more than it saves.
  std::uint64_t most = std::max<std::uint64_t>(1, size / kReadSize);
  unsigned count = static_cast<unsigned>(std::clamp<std::uint64_t>(threads, 1, most));
  std::vector<Result<void>> results(count);
  {
    std::vector<std::jthread> running;
    for (unsigned t = 0; t < count; ++t) {
      std::uint64_t first = n * t / count, last = n * (t + 1) / count;
      if (t + 1 == count) {
        results[t] = sign_range(fd, s, first, last, s.blocks);
      } else {
        running.emplace_back(
            [&, t, first, last] { results[t] = sign_range(fd, s, first, last, s.blocks); });
      }
    }
  }
  for (auto& r : results) TRY(r);
  return s;
}

Result<DeltaResult> compute_delta(int in, const Signature& basis, DeltaSink& sink) {
  Signature none;
  const bool usable =
      basis.block > 0 && basis.blocks.size() == block_count(basis.size, basis.block);
  if (!usable) none.block = kMinBlock;
  return Matcher(in, usable ? basis : none, sink).run();
}

}  // namespace pdx
