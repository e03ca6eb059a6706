#pragma once
// pdx's side of a relay (`pdx push --relay`): the hosts of one group of a wave run
// `pdx agent --relay=DEST` all at once, each on its own session (distribute/push/push.cpp), as a
// chain in their order, or as a tree of fan-out K (`--relay=tree:K`) in breadth-first order:
// host k forwards to hosts K*k+1 .. K*k+K (a chain is the tree of fan-out 1). pdx hands each
// its setup over its session (the run's secret, made here), tells each where the hosts it
// forwards to listen, and once every link is up streams the group's frames to the head only;
// each host writes them and forwards them to its children (agent/agent_relay.h). Every host
// still replies to pdx over its own session, so each is reported as in a star push. A chain that
// cannot link up (a host unreachable, a firewall between two hosts) is called off before anything
// is sent: the caller then sends from here. The head may take its stream over a direct link from
// pdx (head_over_link(): set up to listen, as a direct host of a star push, and linked to from
// here before go) instead of its ssh channel; where that link cannot be made, it takes it on its
// stdin after all (the go says so), or with --data-via direct the relay is called off.
//
//   Chain        what the hosts have said so far, and what follows (shared by the chain's hosts)
//   ChainInput   host k's stdin for its --relay command
//   ChainReply   host k's stdout and stderr: relay frames go to the Chain, the rest is kept
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "distribute/relay/relay_head.h"
#include "distribute/reply_sink.h"
#include "transport/broadcast.h"
#include "transport/transport.h"

namespace pdx {

struct RelayOptions {
  std::string bind;                 // where the agents listen; "": the address ssh reached
  std::uint16_t low = 0, high = 0;  // their ports; 0, 0: any
  std::size_t fanout = 1;           // hosts each forwards to: 1 a chain, 2..16 a tree
};

/// The relay's shape over `n` hosts, breadth-first: the hosts k forwards to, [first, last)
/// (empty for a leaf).
std::pair<std::size_t, std::size_t> relay_children(std::size_t k, std::size_t n,
                                                   std::size_t fanout);

struct RelayedHost {
  ReplySink::Reply reply;     // its replies (the receive's frames), relay frames taken out
  std::string error;          // the relay's own failure for it: a malformed frame, ...
  std::string forward_error;  // a link to a host it forwards to broke off (that host says why)
};

/// The relay of `labels` (in order, shaped by options.fanout). Thread-safe: called from the
/// hosts' strands.
class Chain {
 public:
  /// `stream`: the group's FrameStream, read for the head from the moment the chain is linked
  /// (`head`: its stall and on_consume), so a chain called off reads nothing of it.
  Chain(std::vector<std::string> labels, std::string secret, RelayOptions options, int stream,
        Broadcast::Options head);

  ~Chain();  // waits for a link to the head being made
  Chain(const Chain&) = delete;
  Chain& operator=(const Chain&) = delete;

  std::size_t size() const { return hosts_.size(); }
  /// Before the head's setup_frame(): its stream goes over a direct link from here once it
  /// listens; `must`: where that link cannot be made, the relay is called off.
  void head_over_link(bool must);
  std::string setup_frame(std::size_t k) const;
  /// Host k's relay_go.
  std::string go_frame(std::size_t k) const;
  /// Whether the head takes its stream over a link (once go() is ready): its stdin ends at go.
  bool head_linked() const;
  /// Why the head's link could not be made ("" when it was, or was not asked for): its stream
  /// went over its ssh channel, or (`must`) the relay was called off.
  std::string head_not_linked() const;

  // ---- from the replies ----
  void listening(std::size_t k, RelayPeer peer);
  void linked(std::size_t k, const RelayStatus& status);
  /// Host k will say no more (its command ended, its host failed, or it said something
  /// malformed): before the chain linked up, that calls it off. `gone`: its command ended by
  /// itself or its session broke (not interrupted, timed out or failed for a stall): the head,
  /// if it had not said relay_end yet, is bridged around from here.
  void ended(std::size_t k, const std::string& why, bool gone = false);

  // ---- from the inputs ----
  enum class Step { wait, ready, off };
  /// relay_next for host k, once every host it forwards to, and every one below those it is
  /// told of (relay_depth() levels in all), has said where it listens.
  Step next_peers(std::size_t k, RelayNext& next);
  Step go();
  /// `wake` once, at the next change of what next_peer() and go() say.
  void on_change(std::size_t k, std::function<void()> wake);
  /// Host k said how its forwarding went (relay_end): it no longer needs bridging around.
  void passed_on(std::size_t k);
  /// The head's stream, started at the first call (distribute/relay/relay_head.h).
  Result<HeadFeed*> head_feed();
  /// What pdx said of its bridge around the head, once the hosts it bridged to have ended
  /// (": bridged around it to ..."); "" when there was none.
  std::string head_bridged();

  /// Whether the chain never linked up (nothing was sent), and why ("HOST: why"). Final for a
  /// host once its own ended() was called.
  bool called_off(std::string& reason) const;

 private:
  struct Host {
    RelayPeer peer;
    bool listening = false;
    bool linked = false;
    bool passed_on = false;
    std::function<void()> wake;
  };
  enum class HeadLink { none, asked, connecting, linked, failed };
  // Runs `change` under the lock, then calls the wakes it made due, outside it.
  template <typename F>
  void update(F change);
  void call_off(std::size_t k, const std::string& why);
  void settle_go();                                           // under the lock
  void link_head(RelayPeer peer);                             // the connecting thread's
  RelayNext below(std::size_t k, bool& all_listening) const;  // under the lock

  const std::vector<std::string> labels_;
  const std::string secret_;
  const RelayOptions options_;
  const int stream_;
  const Broadcast::Options head_;
  mutable std::mutex mutex_;
  std::vector<Host> hosts_;
  bool go_ = false, off_ = false;
  std::string reason_;
  std::unique_ptr<HeadFeed> feed_;
  HeadLink head_link_ = HeadLink::none;
  bool head_must_link_ = false;
  std::optional<RelayLink> to_head_;  // linked, until the feed takes it
  std::string head_why_;              // failed: why
  std::thread connecting_;
};

/// Host k's stdin: its setup, its children's addresses, go, and for the head the stream. The end
/// of input instead, as soon as the chain is called off.
class ChainInput final : public InputSource {
 public:
  ChainInput(Chain& chain, std::size_t k) : chain_(chain), k_(k), pending_(chain.setup_frame(k)) {}
  ChainInput(const ChainInput&) = delete;
  ChainInput& operator=(const ChainInput&) = delete;

  InputPiece next() override;
  void consume(std::size_t n) override;
  void on_ready(std::function<void()> wake) override;
  void on_stall(std::function<void(const std::string&)> fail) override;
  void finish() override {}  // the chain is told when its host ended: Chain::ended()

 private:
  enum class Phase { next, go, stream };
  InputPiece waiting(Chain::Step step);
  void refill(std::string bytes, Phase then);

  Chain& chain_;
  std::size_t k_;
  std::string pending_;  // bytes of the frame being sent
  std::size_t taken_ = 0;
  Phase phase_ = Phase::next;
  HeadFeed* feed_ = nullptr;  // the head's, once streaming
  std::function<void(const std::string&)> stall_;
};

/// Host k's replies to its --relay command: relay frames go to the chain as they come, the
/// receive's frames are kept in host() (as ReplySink keeps them). The caller sets
/// host().reply.result from the exec, then calls chain.ended(k, "").
class ChainReply final : public JobIo {
 public:
  ChainReply(Chain& chain, std::size_t k) : chain_(chain), k_(k) {}
  void output(std::size_t index, Stream stream, std::string_view bytes) override;
  RelayedHost& host() { return host_; }

 private:
  Result<void> take(const Frame& frame);
  void malformed(const std::string& why);

  Chain& chain_;
  std::size_t k_;
  RelayedHost host_;
  FrameDecoder decoder_;
};

}  // namespace pdx
