#include "agent/relay_link.h"

#include "agent/payload_fields.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

namespace pdx {

namespace {

using Clock = RelayLink::Clock;
using namespace std::chrono_literals;

constexpr std::string_view kMagic = "PDXR3";
constexpr std::size_t kNonce = 16;
constexpr std::size_t kMac = 32;                  // HMAC-SHA256, the handshake's
constexpr auto kHandshakeTime = 5s;               // for one peer to prove itself
constexpr std::uint32_t kKeepalive = 0xffffffff;  // a chunk's length: no chunk, the sender is there
constexpr std::uint32_t kGaveUp = 0xfffffffe;     // and: the stream broke off before the sender
constexpr char kHeartbeat = 'h', kPassedOn = 'd';  // the listener's bytes upstream
// Each socket's buffers, fixed (no autotuning up to several MiB): how far a host beyond the
// next can lag behind this one is then known, and a bridge finds its offset in the history
// (agent/relay_bridge.h's relay_history). Linux doubles the value, and caps it at its
// net.core.[rw]mem_max.
constexpr int kSocketBuffer = 1024 * 1024;

std::string hmac(std::string_view key, std::initializer_list<std::string_view> pieces) {
  struct Free {
    void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
    void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
  };
  std::unique_ptr<EVP_MAC, Free> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
  std::unique_ptr<EVP_MAC_CTX, Free> ctx(mac ? EVP_MAC_CTX_new(mac.get()) : nullptr);
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                         OSSL_PARAM_construct_end()};
  std::string out(kMac, '\0');
  std::size_t length = 0;
  bool ok = ctx && EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.data()),
                                key.size(), params) == 1;
  for (auto piece : pieces)
    ok = ok && EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(piece.data()),
                              piece.size()) == 1;
  ok = ok && EVP_MAC_final(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &length,
                           out.size()) == 1;
  if (!ok || length != kMac) std::abort();  // OpenSSL without HMAC-SHA256: nothing to go on
  return out;
}

std::string stall_time() {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kRelayStall).count()) +
         " s";
}

bool equal_macs(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Error sys_error(const std::string& what) {
  return Error{what + ": " + std::strerror(errno)};
}

// Waits for `events` on fd until `deadline`: false on timeout.
Result<bool> wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, int(std::min<long long>(left.count(), 60'000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return sys_error("poll");
  }
}

// The handshake's messages (the socket is TCP_NODELAY for their sake).
Result<void> write_all(int fd, std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(std::size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return sys_error("relay send");
    if (!TRY(wait_for(fd, POLLOUT, deadline))) return Error{"the next host takes nothing"};
  }
  return {};
}

// Exactly `size` bytes; an Error at the end of the stream or on timeout.
Result<std::string> read_exact(int fd, std::size_t size, Clock::time_point deadline) {
  std::string out(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::recv(fd, out.data() + got, size - got, 0);
    if (n > 0) {
      got += std::size_t(n);
      continue;
    }
    if (n == 0) return Error{"the relay link closed"};
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return sys_error("relay receive");
    if (!TRY(wait_for(fd, POLLIN, deadline))) return Error{"nothing came on the relay link"};
  }
  return out;
}

Result<std::string> random_bytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), int(n)) != 1)
    return Error{"no random bytes from OpenSSL"};
  return out;
}

Result<addrinfo*> numeric_address(const std::string& address, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) return Error{address + ": not a numeric address (" + gai_strerror(rc) + ")"};
  return found;
}

Fd stream_socket(int family) {
  Fd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  for (int option : {SO_SNDBUF, SO_RCVBUF})  // before connect and listen: as the window's scale
    ::setsockopt(fd.get(), SOL_SOCKET, option, &kSocketBuffer, sizeof kSocketBuffer);
  return fd;
}

std::string offset_field(std::uint64_t offset) {
  std::string out;
  put_uint(out, offset, 8);
  return out;
}

std::string session_key(std::string_view secret, std::string_view nc, std::string_view nl) {
  return hmac(secret, {"session", nc, nl});
}

}  // namespace

Result<std::string> make_relay_secret() {
  return random_bytes(kRelaySecretSize);
}

Result<RelayListener> relay_listen(const std::string& address, std::uint16_t low,
                                   std::uint16_t high) {
  if (high < low) return Error{"the relay port range ends before it starts", ErrorKind::bad_input};
  for (std::uint32_t port = low; port <= high; ++port) {
    addrinfo* found = TRY(numeric_address(address, std::uint16_t(port)));
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> info(found, ::freeaddrinfo);
    Fd fd = stream_socket(info->ai_family);
    if (!fd) return sys_error("socket");
    int on = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd.get(), info->ai_addr, info->ai_addrlen) != 0) {
      if (errno == EADDRINUSE && port < high) continue;
      return sys_error("cannot listen on " + address + " port " + std::to_string(port));
    }
    if (::listen(fd.get(), 8) != 0) return sys_error("listen");
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &length);
    std::uint16_t actual = bound.ss_family == AF_INET6
                               ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                               : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    return RelayListener{std::move(fd), actual};
  }
  return Error{"no free relay port"};
}

Result<RelayLink> RelayLink::connect(const std::string& address, std::uint16_t port,
                                     std::string_view secret, Clock::time_point deadline) {
  std::string where = address + " port " + std::to_string(port);
  addrinfo* found = TRY(numeric_address(address, port));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> info(found, ::freeaddrinfo);
  Fd fd = stream_socket(info->ai_family);
  if (!fd) return sys_error("socket");
  if (::connect(fd.get(), info->ai_addr, info->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return sys_error("cannot connect to " + where);
    if (!TRY(wait_for(fd.get(), POLLOUT, deadline))) return Error{where + ": connect timed out"};
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return Error{"cannot connect to " + where + ": " + std::strerror(error)};
  }
  int on = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  std::string nc = TRY(random_bytes(kNonce));
  TRY(write_all(fd.get(), std::string(kMagic) + nc, deadline));
  std::string reply = TRY(read_exact(fd.get(), kMagic.size() + kNonce + kMac, deadline));
  if (!reply.starts_with(kMagic)) return Error{where + ": not a pdx relay peer"};
  std::string nl = reply.substr(kMagic.size(), kNonce);
  if (!equal_macs(reply.substr(kMagic.size() + kNonce), hmac(secret, {"accept", nc, nl})))
    return Error{where + ": the peer does not hold this run's secret"};
  TRY(write_all(fd.get(), hmac(secret, {"connect", nc, nl}), deadline));
  std::string held = TRY(read_exact(fd.get(), 8 + kMac, deadline));
  std::string offset = held.substr(0, 8);
  if (!equal_macs(held.substr(8), hmac(secret, {"offset", nc, nl, offset})))
    return Error{where + ": the offset the peer holds failed its check"};
  return RelayLink(std::move(fd), session_key(secret, nc, nl), get_uint(offset));
}

namespace {

// One connection's handshake on the listening side, moved on whenever its socket is ready: the
// connector's hello read, the listener's proof written, the connector's proof read, the offset
// written. Each holds only its own slot, so a peer that sends nothing or sends slowly holds up
// no other.
struct Handshake {
  enum Step { going, failed, linked };
  Handshake(Fd taken, Clock::time_point deadline) : fd(std::move(taken)), until(deadline) {}

  Fd fd;
  Clock::time_point until;                    // its own deadline
  std::size_t want = kMagic.size() + kNonce;  // the size of the message awaited
  std::string in, out;                        // what came of it; what is left to write
  std::string nc, nl;                         // the nonces
  bool proved = false;                        // the connector proved the secret

  short events() const { return out.empty() ? POLLIN : POLLOUT; }

  Result<Step> advance(std::string_view secret, std::uint64_t offset) {
    if (!out.empty()) {
      ssize_t n = ::send(fd.get(), out.data(), out.size(), MSG_NOSIGNAL);
      if (n < 0) return errno == EINTR || errno == EAGAIN ? going : failed;
      out.erase(0, std::size_t(n));
      return out.empty() && proved ? linked : going;
    }
    std::size_t had = in.size();
    in.resize(want);
    ssize_t n = ::recv(fd.get(), in.data() + had, want - had, 0);
    in.resize(had + std::size_t(std::max<ssize_t>(n, 0)));
    if (n == 0) return failed;
    if (n < 0) return errno == EINTR || errno == EAGAIN ? going : failed;
    if (in.size() < want) return going;
    if (nc.empty()) {  // the hello
      if (!in.starts_with(kMagic)) return failed;
      nc = in.substr(kMagic.size());
      nl = TRY(random_bytes(kNonce));
      out = std::string(kMagic) + nl + hmac(secret, {"accept", nc, nl});
      in.clear();
      want = kMac;
      return going;
    }
    if (!equal_macs(in, hmac(secret, {"connect", nc, nl}))) return failed;
    proved = true;
    std::string held = offset_field(offset);
    out = held + hmac(secret, {"offset", nc, nl, held});
    return going;
  }
};

constexpr std::size_t kPendingHandshakes = 16;  // at most, side by side; past it the oldest goes

}  // namespace

Result<RelayLink> RelayLink::accept(int listener, std::string_view secret,
                                    Clock::time_point deadline, std::uint64_t offset) {
  std::vector<Handshake> pending;
  for (;;) {
    auto now = Clock::now();
    if (now >= deadline) return Error{"the previous host never connected"};
    std::erase_if(pending, [&](const Handshake& h) { return h.until <= now; });
    std::vector<pollfd> polls{{listener, POLLIN, 0}};
    auto wake = deadline;
    for (const auto& h : pending) {
      polls.push_back({h.fd.get(), h.events(), 0});
      wake = std::min(wake, h.until);
    }
    auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
    if (::poll(polls.data(), polls.size(), int(std::min<long long>(left, 60'000))) < 0 &&
        errno != EINTR)
      return sys_error("poll");
    for (std::size_t i = pending.size(); i-- > 0;) {  // from the back: erasing moves none left
      if (!polls[1 + i].revents) continue;
      auto step = TRY(pending[i].advance(secret, offset));
      if (step == Handshake::linked)  // the first to link; the others are closed
        return RelayLink(std::move(pending[i].fd),
                         session_key(secret, pending[i].nc, pending[i].nl));
      if (step == Handshake::failed) pending.erase(pending.begin() + std::ptrdiff_t(i));
    }
    if (!(polls[0].revents & POLLIN)) continue;
    Fd fd(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
      return sys_error("accept");
    }
    if (pending.size() == kPendingHandshakes) pending.erase(pending.begin());
    pending.emplace_back(std::move(fd), std::min(deadline, Clock::now() + kHandshakeTime));
  }
}

void ChunkMac::Free::operator()(evp_cipher_ctx_st* ctx) const {
  EVP_CIPHER_CTX_free(ctx);
}

ChunkMac::ChunkMac(std::string_view key) : ctx_(EVP_CIPHER_CTX_new()) {
  if (key.size() != kKeySize) std::abort();  // the caller's bug
  if (!ctx_ || EVP_EncryptInit_ex(ctx_.get(), EVP_aes_256_gcm(), nullptr,
                                  reinterpret_cast<const unsigned char*>(key.data()), nullptr) != 1)
    std::abort();  // OpenSSL without AES-256-GCM: nothing to go on
}

std::string ChunkMac::tag(std::uint64_t sequence, std::string_view length, std::string_view bytes) {
  std::string iv;
  put_uint(iv, sequence, 8);
  iv.append(4, '\0');
  std::string out(kTagSize, '\0');
  unsigned char unused[16];
  int n = 0;
  bool ok = EVP_EncryptInit_ex(ctx_.get(), nullptr, nullptr, nullptr,
                               reinterpret_cast<const unsigned char*>(iv.data())) == 1;
  for (auto piece : {length, bytes})  // additional data only: there is no plaintext
    ok = ok &&
         (piece.empty() || EVP_EncryptUpdate(ctx_.get(), nullptr, &n,
                                             reinterpret_cast<const unsigned char*>(piece.data()),
                                             int(piece.size())) == 1);
  ok = ok && EVP_EncryptFinal_ex(ctx_.get(), unused, &n) == 1 &&
       EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_GET_TAG, int(kTagSize), out.data()) == 1;
  if (!ok) std::abort();
  return out;
}

Result<bool> RelayLink::heard() {
  char said[256];
  ssize_t n = ::recv(fd_.get(), said, sizeof said, MSG_DONTWAIT);
  if (n == 0) return false;
  if (n > 0) heard_ = Clock::now();
  if (n > 0 && std::memchr(said, kPassedOn, std::size_t(n))) passed_on_ = true;
  if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
    return sys_error("relay link");
  return true;
}

// All of `bytes`; while the socket is full, what the peer says is read (its heartbeats): it has
// stalled when it takes nothing and says nothing for kRelayStall. `more`: what follows at once
// is part of the same message (MSG_MORE), so that a chunk's length, bytes and tag leave together
// rather than as segments of their own (the socket is TCP_NODELAY for the handshake's sake).
Result<void> RelayLink::put(std::string_view bytes, bool more) {
  int flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0);
  auto moved = Clock::now();
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), flags);
    if (n > 0) {
      bytes.remove_prefix(std::size_t(n));
      moved = Clock::now();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return sys_error("relay send");
    if (Clock::now() - std::max(moved, heard_) > kRelayStall)
      return Error{"the next host stalled: it took nothing and said nothing for " + stall_time()};
    pollfd p{fd_.get(), POLLOUT | POLLIN, 0};
    if (::poll(&p, 1, 1000) < 0 && errno != EINTR) return sys_error("poll");
    if ((p.revents & POLLIN) && !TRY(heard())) return Error{"the relay link closed"};
  }
  return {};
}

Result<void> RelayLink::put_chunk(std::uint32_t length, std::string_view bytes) {
  std::string field;
  put_uint(field, length, 4);
  std::string tag = mac_.tag(sequence_++, field, bytes);
  TRY(put(field, true));
  TRY(put(bytes, true));
  return put(tag, false);
}

Result<void> RelayLink::send(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > kRelayMaxChunk) std::abort();  // the caller's bug
  return put_chunk(std::uint32_t(bytes.size()), bytes);
}

Result<void> RelayLink::keepalive() {
  return put_chunk(kKeepalive, {});
}

Result<void> RelayLink::finish() {
  TRY(put_chunk(0, {}));
  ::shutdown(fd_.get(), SHUT_WR);
  for (auto since = Clock::now();;) {  // the peer closes once it has passed the end on
    if (Clock::now() - std::max(since, heard_) > kRelayStall)
      return Error{"the next host stalled before the end: it said nothing for " + stall_time()};
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, 1000) < 0 && errno != EINTR) return sys_error("poll");
    if (p.revents && !TRY(heard())) {
      if (passed_on_) return {};
      return Error{"the next host left before it had passed the stream on"};
    }
  }
}

void RelayLink::give_up() {
  (void)put_chunk(kGaveUp, {});  // best effort: the link is dropped either way
  close();
}

void RelayLink::heartbeat() const {
  ::send(fd_.get(), &kHeartbeat, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void RelayLink::passed_on() const {
  ::send(fd_.get(), &kPassedOn, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

// Not POLLRDHUP: a finish() is a FIN too, and the end it follows can wait unread behind a full
// queue (a stalled child) long enough for a bridge to be needed.
bool RelayLink::hung_up() const {
  pollfd p{fd_.get(), 0, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
}

Result<std::optional<std::string>> RelayLink::receive(std::chrono::milliseconds idle) {
  if (ended_) return std::optional<std::string>{};
  std::string length = TRY(read_exact(fd_.get(), 4, Clock::now() + idle));
  std::uint64_t size = get_uint(length);
  while (size == kKeepalive || size == kGaveUp) {
    std::string tag = TRY(read_exact(fd_.get(), ChunkMac::kTagSize, Clock::now() + idle));
    if (!equal_macs(tag, mac_.tag(sequence_++, length, {})))
      return Error{"a relay chunk failed its check"};
    if (size == kGaveUp) {
      gave_up_ = true;
      return Error{"the host before lost its own upstream"};
    }
    length = TRY(read_exact(fd_.get(), 4, Clock::now() + idle));
    size = get_uint(length);
  }
  if (size > kRelayMaxChunk) return Error{"a relay chunk over its limit"};
  std::string bytes = TRY(read_exact(fd_.get(), size, Clock::now() + idle));
  std::string tag = TRY(read_exact(fd_.get(), ChunkMac::kTagSize, Clock::now() + idle));
  if (!equal_macs(tag, mac_.tag(sequence_++, length, bytes)))
    return Error{"a relay chunk failed its check"};
  if (size == 0) {
    ended_ = true;
    return std::optional<std::string>{};
  }
  return std::optional<std::string>(std::move(bytes));
}

}  // namespace pdx
