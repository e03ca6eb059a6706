#pragma once
// A link's beat: a thread that says now and then that this end of a link is there
// (agent/relay_link.h: the receiver's heartbeat(), the sender's keepalive_if_quiet()), while the
// thread of the stream may be held up elsewhere.
#include <chrono>
#include <functional>
#include <thread>

namespace pdx {

/// Calls `beat` every `every`, on a thread of its own that takes no Ctrl-C (base/quiet_threads.h),
/// until it goes; the thread is stopped and joined then, so what `beat` uses must outlive it.
class LinkBeat {
 public:
  LinkBeat(std::chrono::steady_clock::duration every, std::function<void()> beat);

 private:
  std::jthread thread_;
};

}  // namespace pdx
