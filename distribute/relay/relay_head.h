#pragma once
// pdx's side of a relay's head (distribute/relay/relay_chain.h): the group's stream, read here on a
// thread of its own into a RelayQueue that keeps the last kHistory bytes, is the head's stdin
// once its setup is sent (reader 0). When the head's session ends before it has said how its
// forwarding went (relay_end; a killed agent, a host gone), pdx bridges around it as a host
// bridges around one it forwards to (agent/relay_bridge.h): it links to the hosts the head
// forwarded to, and around those gone too to the ones below them, each fed from the offset it
// holds. A head that takes nothing for `stall` while the stream waits is failed, as a host of a
// star is; it is not bridged around: by then the hosts below it have stopped waiting for a
// bridge. Nor is one interrupted or timed out (pdx is stopping it). A host that vanishes (no
// reset) is such a stall: its ssh session has no keepalive of its own.
//
// Over a direct link (`link`: the head set up to listen, as a direct host,
// distribute/direct_link.h), reader 0 goes over it from a thread of its own, in sealed records,
// not through the head's ssh channel; the head's stdin is then only its setup. A link that
// breaks leaves reader 0 where it was: the head's session ends, and it is bridged around as
// above, or failed for its stall.
//
// Thread-safety: reader 0's calls from the head's strand; head_ended() and bridged() from any
// thread. The wake given to on_ready() is called on the reading thread, or in its caller, or
// under this feed's lock (it should only post).
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/relay_bridge.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "agent/relay_queue.h"
#include "base/fd.h"
#include "base/result.h"
#include "transport/input_source.h"

namespace pdx {

class HeadFeed {
 public:
  /// Reads `stream` (not closed here) for the head, whose hosts below are `below` (as pdx tells
  /// the head: RelayNext::peers), linked to with `secret` if it goes.
  /// `on_consume`: told of the bytes the head takes (a progress meter's), or empty. `link`: the
  /// head's direct link, reader 0's way instead of the head's stdin; none: its stdin.
  static Result<std::unique_ptr<HeadFeed>> start(int stream, std::string secret,
                                                 std::vector<RelayBranch> below,
                                                 std::chrono::milliseconds stall,
                                                 std::function<void(std::size_t bytes)> on_consume,
                                                 std::optional<RelayLink> link = std::nullopt);
  ~HeadFeed();  // stops reading; waits for a bridge to end
  HeadFeed(const HeadFeed&) = delete;
  HeadFeed& operator=(const HeadFeed&) = delete;

  // ---- the head's stdin, as InputSource's ----
  InputPiece next();
  void consume(std::size_t n);
  void on_ready(std::function<void()> wake);
  void on_stall(std::function<void(const std::string&)> fail);

  /// The head's session is over; `gone`: it went before it had said relay_end (killed, its
  /// session broken; not interrupted, timed out or failed for its stall), and is bridged around
  /// (once).
  void head_ended(bool gone);
  /// What pdx said of the bridge around the head (": bridged around it to ADDRESS port N from
  /// offset N; ..."), once it has ended (waits for it); "" when there was none.
  std::string bridged();

 private:
  HeadFeed(int stream, std::string secret, std::vector<RelayBranch> below,
           std::chrono::milliseconds stall, std::function<void(std::size_t)> on_consume,
           std::optional<RelayLink> link, Fd stop_read, Fd stop_write);
  void read_loop();
  void send_loop();  // reader 0 over link_
  Result<std::string> read_chunk(std::string& buffer);
  void leave_head();  // reader 0 takes no more, unless a bridge holds it
  void let_go();      // under the lock: reader 0 takes no more (once)

  const int stream_;
  const std::vector<RelayBranch> below_;
  const std::chrono::milliseconds stall_;
  const std::function<void(std::size_t)> on_consume_;
  Fd stop_read_, stop_write_;  // wakes the reading thread blocked in poll()
  RelayQueue queue_;
  RelayBridges bridges_;
  std::optional<RelayLink> link_;  // the head's direct link, for the whole feed, or none
  std::mutex join_mutex_;          // bridged()'s callers, one at a time
  std::mutex mutex_;               // for what follows
  std::function<void(const std::string&)> fail_;
  bool left_ = false, bridging_ = false, stopping_ = false, ended_ = false;
  std::string bridged_;
  RelayQueue::Chunk held_;  // reader 0's chunk being sent
  std::size_t taken_ = 0;   // of held_
  std::thread bridge_, thread_, sender_;
};

}  // namespace pdx
