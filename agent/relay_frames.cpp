#include "agent/relay_frames.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/payload_fields.h"
#include "agent/relay_link.h"

namespace pdx {

namespace {

constexpr std::size_t kMaxAddress = 255;
constexpr std::size_t kFrameHeader = 5;  // agent_protocol's: type byte, u32 length

Result<std::string> read_exact(int fd, std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t got = 0; got < size;) {
    ssize_t n = ::read(fd, out.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
    if (n == 0) return Error{"input ended before the relay was set up"};
    got += std::size_t(n);
  }
  return out;
}

// A port: a u32 of at most 65535.
std::uint16_t port(PayloadReader& r) {
  std::uint32_t v = r.u32();
  if (v > 65535) r.bad();
  return std::uint16_t(v);
}

RelayPeer peer(PayloadReader& r) {
  std::string address = r.str(kMaxAddress);
  return RelayPeer{std::move(address), port(r)};
}

bool flag(PayloadReader& r) {
  std::uint8_t v = r.u8();
  if (v > 1) r.bad();
  return v == 1;
}

}  // namespace

std::string encode(const RelaySetup& m) {
  return PayloadWriter()
      .str(m.secret)
      .u8(m.head)
      .str(m.bind)
      .u32(m.low)
      .u32(m.high)
      .u8(m.direct)
      .take();
}

std::string encode(const RelayPeer& m) {
  return PayloadWriter().str(m.address).u32(m.port).take();
}

std::string encode(const RelayNext& m) {
  PayloadWriter w;
  auto branches = [&w](auto& self, const std::vector<RelayBranch>& all) -> void {
    w.u32(std::uint32_t(all.size()));
    for (const auto& b : all) {
      w.str(b.peer.address).u32(b.peer.port);
      self(self, b.below);
    }
  };
  branches(branches, m.peers);
  return w.take();
}

std::size_t relay_depth(std::size_t fanout) {
  std::size_t depth = 1, level = fanout, all = fanout;
  while (depth < kMaxRelayDepth && all + level * fanout <= kMaxRelayBelow) {
    level *= fanout;
    all += level;
    ++depth;
  }
  return depth;
}

std::string encode(const RelayStatus& m) {
  return PayloadWriter().str(m.error).take();
}

std::string encode(const RelayGo& m) {
  return m.over_stdin ? PayloadWriter().u8(1).take() : std::string();
}

Result<RelaySetup> decode_relay_setup(std::string_view payload) {
  return decode_fields<RelaySetup>(payload, "relay setup", [](PayloadReader& r) {
    RelaySetup m;
    m.secret = r.str(kRelaySecretSize);
    if (m.secret.size() != kRelaySecretSize) r.bad();
    m.head = flag(r);
    m.bind = r.str(kMaxAddress);
    m.low = port(r);
    m.high = port(r);
    m.direct = flag(r);
    return m;
  });
}

Result<RelayPeer> decode_relay_peer(std::string_view payload) {
  return decode_fields<RelayPeer>(payload, "relay peer", [](PayloadReader& r) { return peer(r); });
}

Result<RelayNext> decode_relay_next(std::string_view payload) {
  return decode_fields<RelayNext>(payload, "relay next", [](PayloadReader& r) {
    std::size_t hosts = 0;
    auto branches = [&](auto& self, std::size_t depth) -> std::vector<RelayBranch> {
      std::vector<RelayBranch> all;
      std::uint32_t count = r.u32();
      hosts += count;
      if (count > kMaxRelayFanout || hosts > kMaxRelayBelow || (count && depth > kMaxRelayDepth))
        r.bad();
      for (std::uint32_t i = 0; i < count && r.ok(); ++i) {
        RelayPeer at = peer(r);
        all.push_back(RelayBranch{std::move(at), self(self, depth + 1)});
      }
      return all;
    };
    return RelayNext{branches(branches, 1)};
  });
}

Result<RelayStatus> decode_relay_status(std::string_view payload) {
  return decode_fields<RelayStatus>(payload, "relay status",
                                    [](PayloadReader& r) { return RelayStatus{r.str(kMaxName)}; });
}

Result<RelayGo> decode_relay_go(std::string_view payload) {
  if (payload.empty()) return RelayGo{};
  return decode_fields<RelayGo>(payload, "relay go",
                                [](PayloadReader& r) { return RelayGo{flag(r)}; });
}

Result<Frame> read_frame(int fd, FrameType type) {
  std::string header = TRY(read_exact(fd, kFrameHeader));
  std::uint64_t length = get_uint(std::string_view(header).substr(1));
  if (length > kMaxPayload) return Error{"a frame over its limit", ErrorKind::bad_input};
  FrameDecoder decoder;
  decoder.feed(header);
  decoder.feed(TRY(read_exact(fd, length)));
  auto frame = TRY(decoder.next());
  if (!frame || frame->type != type)
    return Error{"unexpected frame while setting up the relay", ErrorKind::bad_input};
  return std::move(*frame);
}

}  // namespace pdx
