#pragma once
// How many sessions may be setting up (connect, key exchange, host key, authentication) at
// once, whatever the fan-out. Setting up is CPU work on both ends (a key exchange, a signature,
// sshd forking); past a few hundred at once it only adds memory, 55 KiB of libssh2 state per
// session, while the hosts' sshd work queues up anyway. Commands still run -f at once.
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace pdx {

class SetupGate {
 public:
  explicit SetupGate(std::size_t limit) : free_(limit) {}

  /// Takes a slot now (true), or queues `admit` to be called, from whichever thread calls
  /// leave(), when a slot is handed over (false). `admit` must only post to its strand; if its
  /// session no longer wants the slot, it must pass it on with leave().
  bool enter(std::function<void()> admit);
  /// Gives a slot back, or hands it to the first one waiting.
  void leave();

 private:
  std::mutex mutex_;
  std::size_t free_;
  std::deque<std::function<void()>> waiting_;
};

}  // namespace pdx
