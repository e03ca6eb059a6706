#include "transport/broadcast.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/quiet_threads.h"
#include "transport/seconds.h"

namespace pdx {

namespace {

// An unnamed file in $TMPDIR (else /tmp), gone when closed.
Result<Fd> make_spool() {
  const char* dir = std::getenv("TMPDIR");
  std::string where = dir && *dir ? dir : "/tmp";
  Fd fd(::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!fd) {
    std::string path = where + "/pdx-stdin-XXXXXX";
    fd.reset(::mkostemp(path.data(), O_CLOEXEC));
    if (fd) ::unlink(path.c_str());
  }
  if (!fd)
    return Error{"cannot make a spool file for stdin in " + where + ": " + std::strerror(errno)};
  return fd;
}

}  // namespace

Result<std::unique_ptr<Broadcast>> Broadcast::start(int input, std::size_t readers,
                                                    const Options& options) {
  Fd spool;
  if (options.spool) spool = TRY(make_spool());
  return std::unique_ptr<Broadcast>(new Broadcast(input, readers, options, std::move(spool)));
}

Broadcast::Broadcast(int input, std::size_t readers, const Options& options, Fd spool)
    : input_(input), options_(options), spool_(std::move(spool)), readers_(readers) {
  options_.chunk = std::max<std::size_t>(options_.chunk, 1);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) == 0) {
    stop_read_.reset(fds[0]);
    stop_write_.reset(fds[1]);
  }
  auto now = std::chrono::steady_clock::now();
  for (auto& reader : readers_) reader.since = now;
  QuietThreads quiet;  // Ctrl-C is the executor's signal thread's to take, not the reader's
  thread_ = std::thread([this] { read_loop(); });
}

Broadcast::~Broadcast() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  room_.notify_all();
  if (stop_write_) (void)!::write(stop_write_.get(), "x", 1);
  thread_.join();
}

void Broadcast::read_loop() {
  for (;;) {
    auto chunk = std::make_shared<Chunk>();
    bool more = read_chunk(*chunk);
    std::vector<std::function<void()>> wakes;
    {
      std::unique_lock lock(mutex_);
      if (stopping_) return;
      if (chunk->size > 0) {
        read_end_ += chunk->size;
        window_.push_back(std::move(chunk));
      }
      if (!more) at_end_ = true;
      drop_passed();
      wakes = take_wakes();
      if (more) {
        while (window_full() && !stopping_) {
          lock.unlock();
          for (auto& wake : wakes) wake();
          wakes.clear();
          lock.lock();
          if (!window_full() || stopping_) break;
          room_.wait_for(lock, std::min(options_.stall, std::chrono::milliseconds(1000)));
          fail_stalled(wakes);
          drop_passed();
          auto ready = take_wakes();
          wakes.insert(wakes.end(), ready.begin(), ready.end());
        }
      }
    }
    for (auto& wake : wakes) wake();
    if (!more) return;
  }
}

bool Broadcast::read_chunk(Chunk& chunk) {
  chunk.offset = read_end_;  // only this thread changes read_end_
  // Not value-initialised (zeroing 256 KiB per chunk was 20-30 ms of CPU per 256 MiB): only the
  // first `size` bytes, those read, are ever looked at.
  chunk.data = std::make_unique_for_overwrite<char[]>(options_.chunk);
  for (;;) {
    pollfd fds[2] = {{input_, POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
    if (::poll(fds, stop_read_ ? 2 : 1, -1) < 0 && errno != EINTR) break;
    if (stop_read_ && (fds[1].revents & POLLIN)) return false;
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t n = ::read(input_, chunk.data.get(), options_.chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      std::lock_guard lock(mutex_);
      error_ = std::string("reading stdin: ") + std::strerror(errno);
    }
    if (n <= 0) return false;
    chunk.size = static_cast<std::size_t>(n);
    break;  // hand over what came at once: a pipe's writer may wait for the hosts' output
  }
  if (spool_ && chunk.size > 0) {
    std::size_t done = 0;
    while (done < chunk.size) {
      ssize_t n = ::pwrite(spool_.get(), chunk.data.get() + done, chunk.size - done,
                           static_cast<off_t>(chunk.offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::lock_guard lock(mutex_);
        error_ = std::string("writing the stdin spool: ") + std::strerror(errno);
        chunk.size = 0;
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
  }
  return true;
}

// A chunk goes once every reader still reading is past it; with a spool, as soon as the window
// is over its size (a reader behind it reads the spool).
void Broadcast::drop_passed() {
  std::size_t kept = window_.size() * options_.chunk;
  while (!window_.empty()) {
    const Chunk& front = *window_.front();
    std::uint64_t end = front.offset + front.size;
    bool passed = std::all_of(readers_.begin(), readers_.end(), [end](const Reader& r) {
      return r.finished || !r.failure.empty() || r.position >= end;
    });
    if (!passed && !(spool_ && kept > options_.window)) break;
    window_.pop_front();
    kept -= options_.chunk;
  }
}

bool Broadcast::window_full() const {
  return !spool_ && window_.size() * options_.chunk >= options_.window;
}

// The readers holding the full window that have taken nothing for `stall` fail.
void Broadcast::fail_stalled(std::vector<std::function<void()>>& calls) {
  if (!window_full() || window_.empty()) return;
  auto now = std::chrono::steady_clock::now();
  std::uint64_t front_end = window_.front()->offset + window_.front()->size;
  for (auto& reader : readers_) {
    if (reader.finished || !reader.failure.empty() || reader.position >= front_end) continue;
    if (now - reader.since < options_.stall) continue;
    reader.failure =
        "took no input for " + format_seconds(options_.stall) + " while the other hosts waited";
    if (reader.on_stall)
      calls.push_back([fail = std::move(reader.on_stall), why = reader.failure] { fail(why); });
    reader.on_stall = nullptr;
  }
}

std::vector<std::function<void()>> Broadcast::take_wakes() {
  std::vector<std::function<void()>> wakes;
  for (auto& reader : readers_) {
    if (!reader.wake) continue;
    bool ready = reader.position < read_end_ || at_end_ || !reader.failure.empty();
    if (ready) wakes.push_back(std::exchange(reader.wake, nullptr));
  }
  return wakes;
}

Broadcast::Piece Broadcast::next(std::size_t index) {
  std::lock_guard lock(mutex_);
  Reader& reader = readers_[index];
  reader.held.reset();
  Piece piece;
  if (!reader.failure.empty()) {
    piece.state = Piece::State::failed;
    piece.error = reader.failure;
    return piece;
  }
  if (reader.position >= read_end_) {
    if (!at_end_) return piece;  // wait
    piece.state = error_.empty() ? Piece::State::end : Piece::State::failed;
    piece.error = error_;
    return piece;
  }
  piece.state = Piece::State::data;
  if (!window_.empty() && reader.position >= window_.front()->offset) {
    // Chunks are contiguous: find the one that holds the position.
    auto it = std::upper_bound(
        window_.begin(), window_.end(), reader.position,
        [](std::uint64_t pos, const std::shared_ptr<const Chunk>& c) { return pos < c->offset; });
    reader.held = *std::prev(it);
    std::size_t skip = static_cast<std::size_t>(reader.position - reader.held->offset);
    piece.bytes = reader.held->bytes().substr(skip);
    return piece;
  }
  // Behind the window: only with a spool (without one, the window waits for every reader).
  reader.spooled.resize(options_.chunk);
  ssize_t n;
  do {
    n = ::pread(spool_.get(), reader.spooled.data(), reader.spooled.size(),
                static_cast<off_t>(reader.position));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    piece.state = Piece::State::failed;
    piece.error =
        std::string("reading the stdin spool: ") + (n < 0 ? std::strerror(errno) : "it ends early");
    return piece;
  }
  piece.bytes = std::string_view(reader.spooled.data(), static_cast<std::size_t>(n));
  return piece;
}

void Broadcast::consume(std::size_t index, std::size_t n) {
  if (n > 0 && options_.on_consume) options_.on_consume(index, n);
  {
    std::lock_guard lock(mutex_);
    Reader& reader = readers_[index];
    reader.position += n;
    reader.since = std::chrono::steady_clock::now();
    if (n == 0) return;
    std::size_t before = window_.size();
    drop_passed();
    if (window_.size() == before) return;
  }
  room_.notify_one();
}

void Broadcast::on_ready(std::size_t index, std::function<void()> wake) {
  std::vector<std::function<void()>> wakes;
  {
    std::lock_guard lock(mutex_);
    Reader& reader = readers_[index];
    reader.wake = std::move(wake);
    wakes = take_wakes();
  }
  for (auto& ready : wakes) ready();
}

void Broadcast::on_stall(std::size_t index, std::function<void(const std::string&)> fail) {
  std::lock_guard lock(mutex_);
  readers_[index].on_stall = std::move(fail);
}

void Broadcast::finish(std::size_t index) {
  {
    std::lock_guard lock(mutex_);
    Reader& reader = readers_[index];
    if (reader.finished) return;
    reader.finished = true;
    reader.wake = nullptr;
    reader.on_stall = nullptr;
    reader.held.reset();
    reader.spooled = std::string();
    drop_passed();
  }
  room_.notify_one();
}

}  // namespace pdx
