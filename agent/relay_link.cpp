#include "agent/relay_link.h"

#include "agent/payload_fields.h"
#include "base/strings.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace pdx {

namespace {

using Clock = RelayLink::Clock;
using namespace std::chrono_literals;

constexpr std::string_view kMagic = "PDXR5";
constexpr std::size_t kNonce = 16;
constexpr auto kHandshakeTime = 5s;  // for one peer to prove itself
// The records' kinds. Upstream: a chunk of the stream, its end, the sender is there, the stream
// broke off before the sender; downstream: the listener is there, it passed the stream on; and
// the handshake's.
enum Kind : std::uint8_t {
  kChunk = 'c',
  kEnd = 'e',
  kKeepalive = 'k',
  kGaveUp = 'g',
  kHeartbeat = 'h',
  kPassedOn = 'p',
  kAccept = 'a',
  kConnect = 'n',
  kOffset = 'o',
};
constexpr std::size_t kOffsetSize = 8;                      // the largest record downstream
constexpr std::size_t kHello = kMagic.size() + 1 + kNonce;  // the magic, the flow, a nonce
constexpr std::size_t kEmptyRecord = kRecordHeader + kRecordTag;
constexpr std::size_t kOffsetRecord = kEmptyRecord + kOffsetSize;
constexpr std::size_t kMaxUnsent = 64 * kEmptyRecord;  // beats the socket has not taken
// Each socket's buffers, fixed (no autotuning up to several MiB): how far a host beyond the
// next can lag behind this one is then known, and a bridge finds its offset in the history
// (agent/relay_bridge.h's relay_history). Linux doubles the value, and caps it at its
// net.core.[rw]mem_max.
constexpr int kSocketBuffer = 1024 * 1024;

std::string stall_time() {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kRelayStall).count()) +
         " s";
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

// Exactly `size` bytes into `out`; an Error at the end of the stream or on timeout.
Result<void> read_exact(int fd, char* out, std::size_t size, Clock::time_point deadline) {
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::recv(fd, out + got, size - got, 0);
    if (n > 0) {
      got += std::size_t(n);
      continue;
    }
    if (n == 0) return Error{"the relay link closed"};
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return sys_error("relay receive");
    if (!TRY(wait_for(fd, POLLIN, deadline))) return Error{"nothing came on the relay link"};
  }
  return {};
}
Result<std::string> read_exact(int fd, std::size_t size, Clock::time_point deadline) {
  std::string out(size, '\0');
  TRY(read_exact(fd, out.data(), size, deadline));
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

// The record a handshake awaits, `size` bytes: its plaintext, or an Error when it is not one of
// `kind` sealed by a holder of the secret.
Result<std::string> open_record(RecordOpener& opener, std::string_view record, Kind kind) {
  std::string_view header = record.substr(0, kRecordHeader);
  auto h = TRY(opener.header(header));
  if (h.kind != kind || record.size() != kRecordHeader + h.length + kRecordTag)
    return Error{"an unexpected relay record", ErrorKind::bad_input};
  return opener.open(header, std::string(record.substr(kRecordHeader)));
}

// The largest record `end` opens: a chunk where the stream flows to it, else an offset.
std::size_t max_record(LinkFlow flow, LinkEnd end) {
  bool receives = (flow == LinkFlow::to_listener) == (end == LinkEnd::listener);
  return receives ? kRelayMaxChunk : kOffsetSize;
}

std::string sealed(RecordSealer& sealer, Kind kind, std::string_view bytes = {}) {
  std::string out;
  sealer.seal(kind, bytes, out);
  return out;
}

}  // namespace

std::string ssh_address() {
  const char* connection = std::getenv("SSH_CONNECTION");
  auto fields = split_blanks(connection ? connection : "");
  return fields.size() == 4 ? std::string(fields[2]) : "127.0.0.1";
}

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
                                     std::string_view secret, Clock::time_point deadline,
                                     LinkFlow flow) {
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
  std::string nc = std::string(1, char(flow)) + TRY(random_bytes(kNonce));
  TRY(write_all(fd.get(), std::string(kMagic) + nc, deadline));
  std::string reply = TRY(read_exact(fd.get(), kHello + kEmptyRecord, deadline));
  if (!reply.starts_with(std::string(kMagic) + char(flow)))
    return Error{where + ": not a pdx relay peer"};
  std::string nl = reply.substr(kMagic.size() + 1, kNonce);
  LinkKeys keys = link_keys(secret, nc + nl, LinkEnd::connector);
  RecordSealer sealer(keys.send);
  RecordOpener opener(keys.receive, max_record(flow, LinkEnd::connector),
                      flow == LinkFlow::to_listener ? "relay reply" : "relay chunk");
  if (!open_record(opener, std::string_view(reply).substr(kHello), kAccept))
    return Error{where + ": the peer does not hold this run's secret"};
  TRY(write_all(fd.get(), sealed(sealer, kConnect), deadline));
  std::string held = TRY(read_exact(fd.get(), kOffsetRecord, deadline));
  auto offset = open_record(opener, held, kOffset);
  if (!offset) return Error{where + ": the offset the peer holds failed its check"};
  return RelayLink(std::move(fd), std::move(sealer), std::move(opener), get_uint(*offset));
}

namespace {

// One connection's handshake on the listening side, moved on whenever its socket is ready: the
// connector's hello read, the listener's proof written, the connector's proof read, the offset
// written. Each holds only its own slot, so a peer that sends nothing or sends slowly holds up
// no other.
struct Handshake {
  enum Step { going, failed, linked };
  Handshake(Fd taken, Clock::time_point deadline, LinkFlow way)
      : fd(std::move(taken)), until(deadline), flow(way) {}

  Fd fd;
  Clock::time_point until;  // its own deadline
  LinkFlow flow;
  std::size_t want = kHello;           // the size of the message awaited
  std::string in, out;                 // what came of it; what is left to write
  std::optional<RecordSealer> sealer;  // once the connector's hello came
  std::optional<RecordOpener> opener;
  bool proved = false;  // the connector proved the secret

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
    if (!sealer) {  // the hello: the flow this end takes part in, then the connector's nonce
      std::string hello = std::string(kMagic) + char(flow);
      if (!in.starts_with(hello)) return failed;
      std::string nl = TRY(random_bytes(kNonce));
      LinkKeys keys = link_keys(secret, in.substr(kMagic.size()) + nl, LinkEnd::listener);
      sealer.emplace(keys.send);
      opener.emplace(keys.receive, max_record(flow, LinkEnd::listener),
                     flow == LinkFlow::to_listener ? "relay chunk" : "relay reply");
      out = hello + nl + sealed(*sealer, kAccept);
      in.clear();
      want = kEmptyRecord;
      return going;
    }
    if (!open_record(*opener, in, kConnect)) return failed;
    proved = true;
    std::string held;
    put_uint(held, offset, kOffsetSize);
    out = sealed(*sealer, kOffset, held);
    return going;
  }
};

constexpr std::size_t kPendingHandshakes = 16;  // at most, side by side; past it the oldest goes

}  // namespace

Result<RelayLink> RelayLink::accept(int listener, std::string_view secret,
                                    Clock::time_point deadline, std::uint64_t offset,
                                    LinkFlow flow) {
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
        return RelayLink(std::move(pending[i].fd), std::move(*pending[i].sealer),
                         std::move(*pending[i].opener));
      if (step == Handshake::failed) pending.erase(pending.begin() + std::ptrdiff_t(i));
    }
    if (!(polls[0].revents & POLLIN)) continue;
    Fd fd(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
      return sys_error("accept");
    }
    if (pending.size() == kPendingHandshakes) pending.erase(pending.begin());
    pending.emplace_back(std::move(fd), std::min(deadline, Clock::now() + kHandshakeTime), flow);
  }
}

// This end's records. Every seal and every write of a record to the socket happens under
// `writing`, so records leave whole and in the order of their sequence numbers, whichever thread
// sends them: the thread of the stream (send, finish...) takes it for each record; a beat
// (heartbeat, keepalive_if_quiet) only when it is free, never waiting, and what of its record
// the socket did not take waits in `unsent`, sent before the next record. `mutex` guards the
// descriptor's end (close, cut) beside a beat.
struct RelayLink::Sealing {
  explicit Sealing(RecordSealer s) : sealer(std::move(s)) {}
  std::mutex writing;
  std::mutex mutex;
  // Under `writing`:
  RecordSealer sealer;
  std::string unsent;  // a beat's records the socket did not take yet
  // The sending thread's record, reused (not zero-filled: each is written whole).
  std::unique_ptr<char[]> wire;
  std::size_t wire_size = 0;
  Clock::time_point sealed = Clock::now();  // when the last record was
  bool done = false;                        // this end's last record is sealed: no beat after it
};

RelayLink::RelayLink(Fd fd, RecordSealer sealer, RecordOpener opener, std::uint64_t offset)
    : fd_(std::move(fd)),
      out_(std::make_shared<Sealing>(std::move(sealer))),
      in_(std::move(opener)),
      offset_(offset) {}

Result<bool> RelayLink::heard() {
  char said[4096];
  ssize_t n = ::recv(fd_.get(), said, sizeof said, MSG_DONTWAIT);
  if (n == 0) return false;
  if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
    return sys_error("relay link");
  if (n <= 0) return true;
  said_.append(said, std::size_t(n));
  while (said_.size() >= kRecordHeader) {
    std::string_view header = std::string_view(said_).substr(0, kRecordHeader);
    auto h = TRY(in_.header(header));
    std::size_t size = kRecordHeader + h.length + kRecordTag;
    if (said_.size() < size) break;
    TRY(in_.open(header, said_.substr(kRecordHeader, size - kRecordHeader)));
    said_.erase(0, size);
    heard_ = Clock::now();
    if (h.kind == kPassedOn)
      passed_on_ = true;
    else if (h.kind != kHeartbeat)
      return Error{"an unexpected relay record", ErrorKind::bad_input};
  }
  return true;
}

// All of `bytes`; while the socket is full, what the peer says is read (its heartbeats): it has
// stalled when it takes nothing and says nothing for kRelayStall.
Result<void> RelayLink::put(std::string_view bytes) {
  auto moved = Clock::now();
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
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

// One record in one send where the socket takes it (its header, bytes and tag leave together:
// the socket is TCP_NODELAY for the handshake's sake), after what a beat left unsent.
Result<void> RelayLink::put_record(std::uint8_t kind, std::string_view bytes) {
  Sealing& out = *out_;
  std::lock_guard writing(out.writing);
  std::size_t size = sealed_size(bytes.size());
  if (out.wire_size < size) {
    out.wire = std::make_unique_for_overwrite<char[]>(size);
    out.wire_size = size;
  }
  out.sealer.seal(kind, bytes, out.wire.get());
  out.sealed = Clock::now();
  if (kind == kEnd || kind == kGaveUp) out.done = true;
  if (!out.unsent.empty()) {
    std::string before = std::move(out.unsent);
    out.unsent.clear();
    TRY(put(before));
  }
  return put(std::string_view(out.wire.get(), size));
}

Result<void> RelayLink::send(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > kRelayMaxChunk) std::abort();  // the caller's bug
  return put_record(kChunk, bytes);
}

Result<void> RelayLink::keepalive() {
  return put_record(kKeepalive, {});
}

Result<void> RelayLink::finish() {
  TRY(put_record(kEnd, {}));
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
  (void)put_record(kGaveUp, {});  // best effort: the link is dropped either way
  close();
}

namespace {

// What the socket takes of `unsent` now, and within `wait` if more.
void send_unsent(int fd, std::string& unsent, std::chrono::milliseconds wait) {
  auto until = Clock::now() + wait;
  while (!unsent.empty()) {
    ssize_t n = ::send(fd, unsent.data(), unsent.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      unsent.erase(0, std::size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return;  // broken: hung_up() says so
    auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    pollfd p{fd, POLLOUT, 0};
    if (left <= 0 || ::poll(&p, 1, int(left)) <= 0) return;
  }
}

}  // namespace

void RelayLink::beat(std::uint8_t kind, std::chrono::milliseconds quiet) const {
  Sealing& out = *out_;
  std::unique_lock writing(out.writing, std::try_to_lock);
  if (!writing) return;  // a record is on its way: that says as much
  std::lock_guard lock(out.mutex);
  if (!fd_ || out.done || Clock::now() - out.sealed < quiet) return;
  if (out.unsent.size() < kMaxUnsent) {
    out.sealer.seal(kind, {}, out.unsent);
    out.sealed = Clock::now();
  }
  send_unsent(fd_.get(), out.unsent, 0ms);
}

void RelayLink::heartbeat() const {
  beat(kHeartbeat, 0ms);
}

void RelayLink::keepalive_if_quiet(std::chrono::milliseconds quiet) const {
  beat(kKeepalive, quiet);
}

void RelayLink::passed_on() const {
  Sealing& out = *out_;
  std::lock_guard writing(out.writing);
  std::lock_guard lock(out.mutex);
  if (!fd_ || out.done) return;
  out.sealer.seal(kPassedOn, {}, out.unsent);
  out.done = true;
  send_unsent(fd_.get(), out.unsent, 1000ms);
}

void RelayLink::close() {
  if (!out_) return;  // moved from
  std::lock_guard lock(out_->mutex);
  fd_.reset();
}

void RelayLink::cut() const {
  if (!out_) return;
  std::lock_guard lock(out_->mutex);
  if (fd_) ::shutdown(fd_.get(), SHUT_RDWR);
}

// Not POLLRDHUP: a finish() is a FIN too, and the end it follows can wait unread behind a full
// queue (a stalled child) long enough for a bridge to be needed.
bool RelayLink::hung_up() const {
  pollfd p{fd_.get(), 0, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
}

Result<std::optional<std::string_view>> RelayLink::receive(std::chrono::milliseconds idle,
                                                           std::string& buffer) {
  if (ended_) return std::optional<std::string_view>{};
  for (;;) {
    char header_bytes[kRecordHeader];
    TRY(read_exact(fd_.get(), header_bytes, kRecordHeader, Clock::now() + idle));
    std::string_view header(header_bytes, kRecordHeader);
    auto h = TRY(in_.header(header));
    std::size_t size = h.length + kRecordTag;
    if (buffer.size() < size) buffer.resize(size);
    TRY(read_exact(fd_.get(), buffer.data(), size, Clock::now() + idle));
    std::string_view bytes = TRY(in_.open(header, buffer.data(), size));
    switch (h.kind) {
      case kKeepalive:
        continue;
      case kGaveUp:
        gave_up_ = true;
        return Error{"the host before lost its own upstream"};
      case kEnd:
        ended_ = true;
        return std::optional<std::string_view>{};
      case kChunk:
        if (!bytes.empty()) return std::optional<std::string_view>(bytes);
        [[fallthrough]];
      default:
        return Error{"an unexpected relay record", ErrorKind::bad_input};
    }
  }
}

Result<std::optional<std::string>> RelayLink::receive(std::chrono::milliseconds idle) {
  std::string buffer;
  auto bytes = TRY(receive(idle, buffer));
  if (!bytes) return std::optional<std::string>{};
  buffer.resize(bytes->size());  // the chunk is the buffer's first bytes
  return std::optional<std::string>(std::move(buffer));
}

}  // namespace pdx
