#include "archive/unpack_input.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "archive/decoder.h"
#include "archive/foreign_format.h"
#include "archive/part_reader.h"

namespace pdx {

namespace {

constexpr std::size_t kBlockSize = 1 << 20;
constexpr std::size_t kBlocks = 4;  // decoded ahead, and the one the reader holds

// Decoded bytes, and where the parts were when they had been decoded.
struct Block {
  std::vector<char> data;
  std::size_t size = 0;
  const std::string* part = nullptr;
  std::uint64_t position = 0;
  bool last = false;           // the stream ends after these bytes,
  std::optional<Error> error;  // with this error if it broke off
};

// An Error if `head`, the first bytes of the stream (decoded or not), is a format pdx does not
// read.
Result<void> check_format(std::span<const char> head, const std::string& part) {
  auto format = foreign_format(head);
  if (!format) return {};
  return Error{part + ": not a tar or zip archive (looks like " + std::string(*format) +
                   "); pdx reads tar, zip and cpio, plain or compressed with gzip, bzip2, xz or "
                   "zstd",
               ErrorKind::bad_input};
}

}  // namespace

struct UnpackInput::Shared {
  explicit Shared(std::vector<std::string> names) : parts(std::move(names)), decoder(parts) {}

  // The decoding thread: fills free buffers and hands them over in order, until the stream
  // ends or breaks off, or the reader stops it.
  void decode() {
    for (bool last = false; !last;) {
      std::vector<char> buffer;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return stop || !free.empty(); });
        if (stop) return;
        buffer = std::move(free.back());
        free.pop_back();
      }
      Block block;
      while (block.size < buffer.size() && !block.last) {
        auto n = decoder.read(buffer.data() + block.size, buffer.size() - block.size);
        if (!n) block.error = Error{n.error(), n.error_kind()};
        block.last = !n || *n == 0;
        if (n) block.size += *n;
      }
      block.data = std::move(buffer);
      block.part = &parts.current_part();
      block.position = parts.position();
      last = block.last;
      {
        std::lock_guard lock(mutex);
        ready.push_back(std::move(block));
      }
      changed.notify_all();
    }
  }

  // Set up by open(), then the decoding thread's alone while it runs.
  PartReader parts;
  StreamDecoder decoder;
  bool regular = false;  // every part a regular file

  // Between the two threads, under mutex.
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::vector<char>> free;  // buffers to fill
  std::deque<Block> ready;              // filled, in stream order
  bool stop = false;

  // The reader's alone.
  bool decoding = false;         // by the thread; else read() reads into `direct`
  std::vector<char> direct;      // undecoded bytes
  Block current;                 // decoded bytes read() returned last
  bool holding = false;          // current.data is one of the buffers
  bool decoded_checked = false;  // the first decoded block went through check_format
};

UnpackInput::UnpackInput(std::vector<std::string> parts)
    : shared_(std::make_shared<Shared>(std::move(parts))) {}

UnpackInput::~UnpackInput() {
  if (!decoding_.joinable()) return;
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stop = true;
  }
  shared_->changed.notify_all();
  if (shared_->regular) {
    decoding_.join();
  } else {
    decoding_.detach();
  }
}

Result<void> UnpackInput::open(SetCheck how) {
  Shared& s = *shared_;
  TRY(s.parts.check(how));
  TRY(s.decoder.open());
  TRY(check_format(s.decoder.head(), s.parts.current_part()));
  s.regular = s.parts.seekable();
  if (s.decoder.passthrough()) {
    s.direct.resize(kBlockSize);
    return {};
  }
  s.current.part = &s.parts.current_part();
  s.current.position = s.parts.position();
  s.free.assign(kBlocks, std::vector<char>(kBlockSize));
  s.decoding = true;
  decoding_ = std::thread([shared = shared_] { shared->decode(); });
  return {};
}

Result<std::span<const char>> UnpackInput::read() {
  Shared& s = *shared_;
  if (!s.decoding) {
    auto n = TRY(s.decoder.read(s.direct.data(), s.direct.size()));
    return std::span<const char>(s.direct.data(), n);
  }
  auto end = [&s]() -> Result<std::span<const char>> {
    if (s.current.error) return *s.current.error;
    return std::span<const char>();
  };
  std::unique_lock lock(s.mutex);
  if (s.holding) {
    s.free.push_back(std::move(s.current.data));
    s.holding = false;
    s.changed.notify_all();
  }
  if (s.current.last) return end();
  s.changed.wait(lock, [&s] { return !s.ready.empty(); });
  s.current = std::move(s.ready.front());
  s.ready.pop_front();
  s.holding = true;
  if (s.current.size == 0) return end();
  std::span<const char> data(s.current.data.data(), s.current.size);
  if (!s.decoded_checked) {  // what was compressed (a whole block unless the stream is shorter)
    s.decoded_checked = true;
    TRY(check_format(data, *s.current.part));
  }
  return data;
}

std::optional<Error> UnpackInput::pending_error() const {
  Shared& s = *shared_;
  if (!s.decoding) return std::nullopt;
  if (s.current.error) return s.current.error;
  if (s.current.last) return std::nullopt;
  std::unique_lock lock(s.mutex);
  s.changed.wait(lock, [&s] {
    return s.ready.size() + (s.holding ? 1 : 0) == kBlocks ||
           (!s.ready.empty() && s.ready.back().last);
  });
  for (const auto& block : s.ready) {
    if (block.error) return block.error;
  }
  return std::nullopt;
}

bool UnpackInput::seekable() const {
  return shared_->decoder.passthrough() && shared_->regular;
}

Result<std::uint64_t> UnpackInput::seek(std::int64_t offset, int whence) {
  if (!seekable()) return Error{current_part() + ": cannot seek"};
  return shared_->parts.seek(offset, whence);
}

const std::string& UnpackInput::current_part() const {
  return shared_->decoding ? *shared_->current.part : shared_->parts.current_part();
}

std::uint64_t UnpackInput::position() const {
  return shared_->decoding ? shared_->current.position : shared_->parts.position();
}

std::uint64_t UnpackInput::total_size() const {
  return shared_->parts.total_size();
}

}  // namespace pdx
