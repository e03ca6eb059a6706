#pragma once
// How many sessions may be setting up (connect, key exchange, host key, authentication) at
// once, whatever the fan-out: a window paced by how long setups take, as TCP paces its window
// by acknowledgements. Setting up is CPU work on both ends (a key exchange, a signature, sshd
// forking); when the servers' CPU is short (a loaded machine, many hosts on few cores), every
// setup more in flight makes all of them slower, until hosts time out for pdx's parallelism
// rather than their own slowness. So the window starts small and is paced by setup times
// against a bar, a third of the connect timeout: a setup under half the bar grows it by one
// (doubling per window), one under the bar by less the nearer it is; one over the bar when their
// smoothed time is too, or one over half its timeout, shrinks it by 30%, once per window (the
// setups already in flight were started under the larger one). Setups that take long on their own
// (a slow login, not a busy server) do not shrink it: the bar rises to 1.5x the fastest setup seen,
// up to half the timeout. Commands still run -f at once.
//
// And how many descriptors the sessions may hold: a session setting up holds two (its socket,
// and the agent's while it authenticates), one set up holds its socket until it closes. Under a
// low limit on open files (ulimit -n) sessions wait for descriptors instead of failing each
// with "Too many open files".
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace pdx {

class SetupGate {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kSettingUp = 2, kSetUp = 1;  // descriptors a session holds
  static constexpr std::size_t kFirstWindow = 8;
  // The timeout a setup without one is paced against.
  static constexpr std::chrono::seconds kDefaultTimeout{10};

  /// At most `limit` sessions setting up (the window's ceiling), holding at most `descriptors`
  /// descriptors in all (at least kSettingUp). `now` is the clock setups are timed by.
  SetupGate(std::size_t limit, std::size_t descriptors,
            std::function<Clock::time_point()> now = &Clock::now);

  /// Takes a slot now (true), or queues `admit` to be called, from whichever thread calls
  /// paced(), set_up() or leave(), when a slot is handed over (false). `admit` must only post
  /// to its strand; if its session no longer wants the slot, it must pass it on with
  /// leave(false).
  bool enter(std::function<void()> admit);
  /// The time by the gate's clock: when a session admitted starts its setup.
  Clock::time_point now() const { return now_(); }
  /// A setup admitted at `started`, given `timeout` (0: kDefaultTimeout), ended now: set up, or
  /// timed out after the server answered. Grows or shrinks the window. Other failures (no
  /// answer, a refused key or login) say nothing about the servers' pace: not reported.
  void paced(Clock::time_point started, Clock::duration timeout);
  /// The session is set up: gives its setup slot back, and the descriptor it no longer needs.
  void set_up();
  /// The session closed: gives back what it holds (`set_up`: whether set_up() was called).
  void leave(bool set_up);

  /// Sessions that may be setting up at once now.
  std::size_t window() const;

 private:
  using Admitted = std::vector<std::function<void()>>;
  Admitted admit_waiting();  // under mutex_
  void release(std::size_t slots, std::size_t descriptors);
  std::size_t slots() const;  // under mutex_

  std::function<Clock::time_point()> now_;
  mutable std::mutex mutex_;
  std::size_t limit_, in_flight_ = 0, descriptors_;
  std::deque<std::function<void()>> waiting_;
  double window_;
  Clock::duration fastest_ = Clock::duration::max();
  double smoothed_ = -1;        // setups' time over the bar, smoothed; < 0: none yet
  Clock::time_point shrunk_{};  // setups admitted before it were paced by the larger window
};

}  // namespace pdx
