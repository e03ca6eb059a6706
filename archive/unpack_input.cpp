#include "archive/unpack_input.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "archive/decoder.h"
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
  bool last = false;                 // the stream ends after these bytes,
  std::optional<std::string> error;  // with this error if it broke off
};

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
        if (!n) block.error = n.error();
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
  bool decoding = false;     // by the thread; else read() reads into `direct`
  std::vector<char> direct;  // undecoded bytes
  Block current;             // decoded bytes read() returned last
  bool holding = false;      // current.data is one of the buffers
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

Result<void> UnpackInput::open() {
  Shared& s = *shared_;
  TRY(s.parts.check());
  TRY(s.decoder.open());
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
    if (s.current.error) return Error{*s.current.error};
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
  return std::span<const char>(s.current.data.data(), s.current.size);
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
