#pragma once
// A data link over TCP: between two agents of one `pdx push --relay` run, the data going from
// the connecting agent (upstream) to the listening one (downstream); between pdx and an agent
// (distribute/direct_link.h), from pdx to a listening agent (push, sync), or from a listening
// agent to pdx (pull: LinkFlow::to_connector). In sealed records (agent/sealed_record.h:
// AES-128-GCM, keys of this link's own, per direction, derived from the run's secret, handed to
// each agent over its ssh session, never on a command line, and the link's two nonces;
// ARCHITECTURE.md, "The relay"). R(kind, bytes) is a record; the sender is the end the stream
// flows from, the receiver the other:
//
//   connector -> "PDXR5" f nc         f: the flow ('l' to the listener, 'c' to the connector),
//                                     nc, nl: 16 random bytes each; f is in the keys' context
//   listener  -> "PDXR5" f nl R(accept)  the listener's proof: only a holder of the secret seals
//                                     it; a listener awaiting the other flow refuses the hello
//   connector -> R(connect)           the connector's
//   listener  -> R(offset, u64)       to the listener: the stream offset it holds (0 on a first
//                                     link, more on a bridge); to the connector: 0, where the
//                                     stream it sends starts
//   sender    -> R(chunk, bytes)...   R(end) ends the stream, R(keepalive) says the sender is
//                                     there with nothing to send, R(gave up) that the stream broke
//                                     off before the sender and no bridge came to it
//   receiver  -> R(heartbeat)...      now and then (heartbeat()): it is there, even when it takes
//                                     nothing; and once it has passed the whole stream on (its own
//                                     hosts have taken it: passed_on()), R(passed on), then closes
//
// So a peer without the secret learns nothing of the stream and cannot inject, alter, reorder,
// replay or cut a record (each direction numbers its records from 0 in their nonces), and a link
// that breaks is an error, never a shorter stream. A peer that stops (a stalled host) is told from
// one that is only slow: the sender gives up when the receiver takes nothing and says nothing for
// kStall, the receiver when nothing, not even a keepalive, comes for kStall. The listener
// handshakes the connections it takes side by side (at most 16, the oldest dropped past that),
// each with 5 s of its own, so a peer without the secret that connects and sends nothing holds
// up no one but itself; the first to prove itself is the link, the others are closed. Then
// blocking I/O with deadlines; a link is used by one thread at a time
// (agent/agent_relay.cpp: one receives, another forwards), but for heartbeat() and
// keepalive_if_quiet(), from a thread of its own: every record is sealed and written under one
// lock, so a beat never lands inside another record nor takes its sequence number, and it
// never waits for the stream's thread (it is not sent while a record is on its way).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "agent/sealed_record.h"
#include "base/fd.h"
#include "base/result.h"

namespace pdx {

inline constexpr std::size_t kRelaySecretSize = 32;
inline constexpr std::size_t kRelayMaxChunk = 1024 * 1024;
/// A peer that sends nothing (not even a keepalive or heartbeat) this long has stalled.
inline constexpr std::chrono::milliseconds kRelayStall = std::chrono::seconds(10);

/// The address this host's ssh session came in on (SSH_CONNECTION's third field): the one pdx
/// reached it by, so the one pdx and the other hosts are most likely to reach it by too;
/// 127.0.0.1 without one.
std::string ssh_address();

/// kRelaySecretSize random bytes for one run.
Result<std::string> make_relay_secret();

/// Which way a link's stream flows: to the listener (the relay's links, push's direct ones), or
/// to the connector (pull's: the agent listens and sends, pdx connects and receives). Both ends
/// are told it by their callers; a link whose ends disagree is never made.
enum class LinkFlow : char { to_listener = 'l', to_connector = 'c' };

struct RelayListener {
  Fd fd;
  std::uint16_t port = 0;
};

/// A listening socket on `address` (numeric IPv4 or IPv6), on the first free port of
/// [low, high]; low = high = 0: one the kernel picks.
Result<RelayListener> relay_listen(const std::string& address, std::uint16_t low,
                                   std::uint16_t high);

class RelayLink {
 public:
  using Clock = std::chrono::steady_clock;

  /// Connects to address:port and authenticates, by `deadline`; offset() is then the stream
  /// offset the peer holds (LinkFlow::to_connector: 0).
  static Result<RelayLink> connect(const std::string& address, std::uint16_t port,
                                   std::string_view secret, Clock::time_point deadline,
                                   LinkFlow flow = LinkFlow::to_listener);

  /// Takes connections on `listener` and handshakes them side by side until one authenticates
  /// (the others are closed: a port scanner, a stale, idle or forged peer neither ends the wait
  /// nor holds up the others), by `deadline`, and tells it `offset`, the stream offset this end
  /// holds (LinkFlow::to_connector: 0, where the stream this end sends starts).
  static Result<RelayLink> accept(int listener, std::string_view secret, Clock::time_point deadline,
                                  std::uint64_t offset, LinkFlow flow = LinkFlow::to_listener);

  /// What the peer said it holds (connect()'s side).
  std::uint64_t offset() const { return offset_; }
  /// Sends one chunk of 1..kRelayMaxChunk bytes: an Error when the link broke or the peer
  /// stalled.
  Result<void> send(std::string_view bytes);
  /// Says the sender is there, with nothing to send.
  Result<void> keepalive();
  /// The same from a thread of its own, while the stream's thread is held up (its producer
  /// blocked in a read): a keepalive when no record went out for `quiet`. Never blocking (none
  /// is added while the socket holds earlier ones unsent), never inside another record, never
  /// after the end or a give-up.
  void keepalive_if_quiet(std::chrono::milliseconds quiet) const;
  /// Ends the stream (the peer's receive() then returns nullopt), and waits until the peer has
  /// passed it on (passed_on()): an Error when it broke off or stalled before, so that the hosts
  /// after it can still be bridged.
  Result<void> finish();
  /// Says the stream broke off before this end and no bridge came (the peer's receive() then
  /// fails, gave_up() true), then drops the link.
  void give_up();
  /// Whether the peer said it gave up (receive()'s side).
  bool gave_up() const { return gave_up_; }
  /// The receiver's "I am here", never blocking (none is added while the socket holds earlier
  /// ones unsent), never after passed_on().
  void heartbeat() const;
  /// The receiver's "every host after me has the whole stream": then the sender's finish()
  /// returns. Waits at most a second for the socket to take it; the caller then drops the link.
  void passed_on() const;
  /// Whether the link broke (reset: the peer closed it with bytes unread, or was written to
  /// after it closed; what it sent before may still be there to receive). Not a peer that only
  /// ended its side (RelayLink::finish). Never blocking, safe beside receive().
  bool hung_up() const;
  /// Drops the link: the peer sees it break off, never a clean end. Safe beside cut() and a
  /// beat.
  void close();
  /// Breaks the link from another thread (pdx ending a host's link): what its user is blocked
  /// in, or calls next, fails at once. Safe beside every other call, close() too: never
  /// shuts down a descriptor closed meanwhile, whose number another socket may hold by then.
  void cut() const;
  /// The next chunk, or nullopt at the end of the stream; an Error when the link broke, a chunk
  /// failed its check, or nothing came for `idle`.
  Result<std::optional<std::string>> receive(std::chrono::milliseconds idle);
  /// The same, opened in place in the first bytes of `buffer`, grown as needed and never shrunk:
  /// a caller that keeps it for the next allocates once for the stream. Valid until `buffer`
  /// changes.
  Result<std::optional<std::string_view>> receive(std::chrono::milliseconds idle,
                                                  std::string& buffer);

  RelayLink(RelayLink&&) = default;
  RelayLink& operator=(RelayLink&&) = default;

 private:
  struct Sealing;  // this end's records: sealed and written one at a time
  RelayLink(Fd fd, RecordSealer sealer, RecordOpener opener, std::uint64_t offset = 0);
  Result<void> put_record(std::uint8_t kind, std::string_view bytes);
  Result<void> put(std::string_view bytes);
  void beat(std::uint8_t kind, std::chrono::milliseconds quiet) const;
  Result<bool> heard();  // reads what the peer said: false when it closed the link

  Fd fd_;
  std::shared_ptr<Sealing> out_;
  RecordOpener in_;
  std::string said_;  // what the peer said, short of a whole record (the sender's side)
  std::uint64_t offset_ = 0;
  Clock::time_point heard_{};  // when the peer last said something (the sender's side)
  bool passed_on_ = false;     // and whether it said it passed the stream on
  bool ended_ = false;
  bool gave_up_ = false;
};

}  // namespace pdx
