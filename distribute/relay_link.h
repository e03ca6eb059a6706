#pragma once
// A link between two agents of one `pdx push --relay` run, over TCP: the data goes from the
// connecting agent (upstream) to the listening one (downstream). No listener takes data from a
// peer that has not proved it holds the run's secret (handed to each agent over its ssh session,
// never on a command line), and every chunk is checked (ARCHITECTURE.md, "The relay"):
//
//   connector -> "PDXR2" nonce_c            16 random bytes each
//   listener  -> "PDXR2" nonce_l proof_l    proof_l = HMAC-SHA256(secret, "accept" nonce_c nonce_l)
//   connector -> proof_c                    proof_c = HMAC-SHA256(secret, "connect" nonce_c
//   nonce_l) then chunks: u32 length, bytes, tag     tag = ChunkMac(session, sequence, length
//   bytes)
//                                           session = HMAC-SHA256(secret, "session" nonce_c
//                                           nonce_l)
//   a chunk of length 0 ends the stream
//
// So a peer without the secret learns nothing it can use and cannot inject, reorder, replay or
// cut a chunk (the session key is the link's own, the sequence number the chunk's), and a link
// that breaks is an error, never a shorter stream. Blocking I/O with deadlines; a link is used by
// one thread at a time (distribute/agent_relay.cpp: one receives, another forwards).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/fd.h"
#include "base/result.h"

struct evp_cipher_ctx_st;  // OpenSSL's EVP_CIPHER_CTX

namespace pdx {

inline constexpr std::size_t kRelaySecretSize = 32;
inline constexpr std::size_t kRelayMaxChunk = 1024 * 1024;

/// The chunks' MAC: GMAC, that is AES-256-GCM authenticating the chunk's length field and bytes
/// with no plaintext, its 96-bit IV the chunk's u64 sequence number (big-endian) and 4 zero
/// bytes. Each link has a key of its own and numbers its chunks from 0, so no IV is used twice
/// under one key. Several GB/s with AES-NI and PCLMUL, where HMAC-SHA256 is one and a half.
class ChunkMac {
 public:
  static constexpr std::size_t kKeySize = 32;
  static constexpr std::size_t kTagSize = 16;
  /// Under `key` (kKeySize bytes); the key schedule is made once, here.
  explicit ChunkMac(std::string_view key);
  std::string tag(std::uint64_t sequence, std::string_view length, std::string_view bytes);

 private:
  struct Free {
    void operator()(evp_cipher_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_cipher_ctx_st, Free> ctx_;
};

/// kRelaySecretSize random bytes for one run.
Result<std::string> make_relay_secret();

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

  /// Connects to address:port and authenticates, by `deadline`.
  static Result<RelayLink> connect(const std::string& address, std::uint16_t port,
                                   std::string_view secret, Clock::time_point deadline);

  /// Takes connections on `listener` until one authenticates (the others are closed: a port
  /// scanner or a stale peer does not end the wait), by `deadline`.
  static Result<RelayLink> accept(int listener, std::string_view secret,
                                  Clock::time_point deadline);

  /// Sends one chunk of 1..kRelayMaxChunk bytes.
  Result<void> send(std::string_view bytes);
  /// Ends the stream (the peer's receive() then returns nullopt).
  Result<void> finish();
  /// Drops the link: the peer sees it break off, never a clean end.
  void close() { fd_.reset(); }
  /// The next chunk, or nullopt at the end of the stream; an Error when the link broke, a chunk
  /// failed its check, or nothing came for `idle`.
  Result<std::optional<std::string>> receive(std::chrono::milliseconds idle);

  RelayLink(RelayLink&&) = default;
  RelayLink& operator=(RelayLink&&) = default;

 private:
  RelayLink(Fd fd, std::string_view session) : fd_(std::move(fd)), mac_(session) {}
  Result<void> put_chunk(std::string_view bytes);

  Fd fd_;
  ChunkMac mac_;  // under the link's session key
  std::uint64_t sequence_ = 0;
  bool ended_ = false;
};

}  // namespace pdx
