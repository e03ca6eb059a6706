#pragma once
// What one operation on a host reads as its stdin, pulled by the session as the host takes it:
// a reader of pdx's stdin broadcast to every host (transport/broadcast.h), an operation's own
// bytes (BytesInput), or later a stream a caller writes into (the agent client's frames).
//
//   next() -> bytes | wait (on_ready(wake) fires once) | end | failed
//   consume(n) after n of the bytes are taken; finish() when the operation takes no more
//   on_stall(fail): told when the source gives up on this reader (it held the others back)
//
// Thread-safety: one operation uses a source at a time, on its strand. `wake` and `fail` may be
// called on any thread (a broadcast's reading thread): they should only post to the strand.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace pdx {

/// What next() found.
struct InputPiece {
  enum class State { data, wait, end, failed };
  State state = State::wait;
  std::string_view bytes;  // with data: valid until the next next() or consume()
  std::string error;       // with failed: one line, no host name
};

class InputSource {
 public:
  virtual ~InputSource() = default;
  virtual InputPiece next() = 0;
  /// `n` bytes of the last piece were taken.
  virtual void consume(std::size_t n) = 0;
  /// `wake` is called once, when next() would no longer say wait.
  virtual void on_ready(std::function<void()> wake) = 0;
  /// `fail` is called at most once, if the source gives up on this reader: the operation should
  /// end with that error.
  virtual void on_stall(std::function<void(const std::string&)> fail) = 0;
  /// The operation takes no more (its command ended or its host failed). Idempotent.
  virtual void finish() = 0;
};

/// Given bytes, then the end: an operation's own stdin. Never waits, never stalls.
class BytesInput final : public InputSource {
 public:
  explicit BytesInput(std::string bytes) : bytes_(std::move(bytes)) {}
  InputPiece next() override;
  void consume(std::size_t n) override { taken_ += n; }
  void on_ready(std::function<void()>) override {}
  void on_stall(std::function<void(const std::string&)>) override {}
  void finish() override { taken_ = bytes_.size(); }

 private:
  std::string bytes_;
  std::size_t taken_ = 0;
};

}  // namespace pdx
