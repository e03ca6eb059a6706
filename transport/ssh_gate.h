#pragma once
// How many sessions may be setting up (connect, key exchange, host key, authentication) at
// once, whatever the fan-out. Setting up is CPU work on both ends (a key exchange, a signature,
// sshd forking); past a few hundred at once it only adds memory, 55 KiB of libssh2 state per
// session, while the hosts' sshd work queues up anyway. Commands still run -f at once.
//
// And how many descriptors the sessions may hold: a session setting up holds two (its socket,
// and the agent's while it authenticates), one set up holds its socket until it closes. Under a
// low limit on open files (ulimit -n) sessions wait for descriptors instead of failing each
// with "Too many open files".
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace pdx {

class SetupGate {
 public:
  static constexpr std::size_t kSettingUp = 2, kSetUp = 1;  // descriptors a session holds

  /// At most `limit` sessions setting up, holding at most `descriptors` descriptors in all
  /// (at least kSettingUp).
  SetupGate(std::size_t limit, std::size_t descriptors) : free_(limit), descriptors_(descriptors) {}

  /// Takes a slot now (true), or queues `admit` to be called, from whichever thread calls
  /// set_up() or leave(), when a slot is handed over (false). `admit` must only post to its
  /// strand; if its session no longer wants the slot, it must pass it on with leave(false).
  bool enter(std::function<void()> admit);
  /// The session is set up: gives its setup slot back, and the descriptor it no longer needs.
  void set_up();
  /// The session closed: gives back what it holds (`set_up`: whether set_up() was called).
  void leave(bool set_up);

 private:
  void release(std::size_t slots, std::size_t descriptors);

  std::mutex mutex_;
  std::size_t free_, descriptors_;
  std::deque<std::function<void()>> waiting_;
};

}  // namespace pdx
