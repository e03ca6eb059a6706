#include "agent/relay_frames.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "agent/relay_link.h"

namespace pdx {
namespace {

TEST(RelayFrames, RoundTrip) {
  RelaySetup setup{std::string(kRelaySecretSize, 's'), true, "10.0.0.1", 7000, 7099};
  auto s = decode_relay_setup(encode(setup));
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->secret, setup.secret);
  EXPECT_TRUE(s->head);
  EXPECT_EQ(s->bind, "10.0.0.1");
  EXPECT_EQ(s->low, 7000);
  EXPECT_EQ(s->high, 7099);
  EXPECT_FALSE(s->direct);
  setup.direct = true;
  EXPECT_TRUE(decode_relay_setup(encode(setup))->direct);
  auto p = decode_relay_peer(encode(RelayPeer{"127.0.0.3", 40001}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->address, "127.0.0.3");
  EXPECT_EQ(p->port, 40001);
  auto n = decode_relay_next(encode(RelayNext{{{{"127.0.0.4", 1}, {}}, {{"127.0.0.5", 2}, {}}}}));
  ASSERT_TRUE(n);
  ASSERT_EQ(n->peers.size(), 2u);
  EXPECT_EQ(n->peers[1].peer.address, "127.0.0.5");
  EXPECT_EQ(n->peers[1].peer.port, 2);
  EXPECT_TRUE(n->peers[0].below.empty() && n->peers[1].below.empty()) << "leaves";
  EXPECT_TRUE(decode_relay_next(encode(RelayNext{}))->peers.empty());
  // h2 -> (h4 -> h7), h5; h3 -> h6: three levels.
  RelayNext tree{
      {{{"127.0.0.2", 2}, {{{"127.0.0.4", 4}, {{{"127.0.0.7", 7}, {}}}}, {{"127.0.0.5", 5}, {}}}},
       {{"127.0.0.3", 3}, {{{"127.0.0.6", 6}, {}}}}}};
  auto t = decode_relay_next(encode(tree));
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->peers.size(), 2u);
  ASSERT_EQ(t->peers[0].below.size(), 2u);
  EXPECT_EQ(t->peers[0].below[1].peer.address, "127.0.0.5");
  EXPECT_EQ(t->peers[0].below[1].peer.port, 5);
  ASSERT_EQ(t->peers[0].below[0].below.size(), 1u);
  EXPECT_EQ(t->peers[0].below[0].below[0].peer.port, 7);
  ASSERT_EQ(t->peers[1].below.size(), 1u);
  EXPECT_EQ(t->peers[1].below[0].peer.port, 6);
  auto st = decode_relay_status(encode(RelayStatus{"refused"}));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->error, "refused");
}

TEST(RelayFrames, HostileFieldsAreRefused) {
  EXPECT_FALSE(decode_relay_setup(encode(RelaySetup{"short", false, "", 0, 0})));
  std::string bad_port = encode(RelayPeer{"a", 1});
  bad_port[bad_port.size() - 3] = 1;  // 65537
  EXPECT_FALSE(decode_relay_peer(bad_port));
  EXPECT_FALSE(decode_relay_peer(encode(RelayPeer{"a", 1}) + "x"));
  EXPECT_FALSE(decode_relay_status(""));
  EXPECT_FALSE(decode_relay_next(encode(RelayNext{std::vector<RelayBranch>(17, {{"a", 1}, {}})})));
  EXPECT_FALSE(decode_relay_next(std::string("\xff\xff\xff\xff", 4)));  // a count, no peers
  // The hosts below a peer: bounded as the peers are, nothing after.
  EXPECT_FALSE(decode_relay_next(
      encode(RelayNext{{{{"a", 1}, std::vector<RelayBranch>(17, {{"b", 2}, {}})}}})));
  std::string one = encode(RelayNext{{{{"a", 1}, {{{"b", 2}, {}}}}}});
  EXPECT_TRUE(decode_relay_next(one));
  EXPECT_FALSE(decode_relay_next(one.substr(0, one.size() - 1)));
  EXPECT_FALSE(decode_relay_next(one + "x"));
  std::string huge = encode(RelayNext{{{{"a", 1}, {}}}});
  huge.replace(huge.size() - 4, 4, std::string("\xff\xff\xff\xff", 4));
  EXPECT_FALSE(decode_relay_next(huge)) << "a count below of 2^32-1";
  EXPECT_FALSE(decode_relay_next(huge.substr(0, huge.size() - 4))) << "no count below";
  // No deeper than kMaxRelayDepth levels, no more than kMaxRelayBelow hosts in all.
  auto chain = [](std::size_t depth) {
    RelayNext next;
    std::vector<RelayBranch>* level = &next.peers;
    for (std::size_t d = 0; d < depth; ++d)
      level = &level->emplace_back(RelayBranch{{"a", 1}, {}}).below;
    return encode(next);
  };
  EXPECT_TRUE(decode_relay_next(chain(kMaxRelayDepth)));
  EXPECT_FALSE(decode_relay_next(chain(kMaxRelayDepth + 1))) << "a level too deep";
  // 16 + 256 hosts, and more below them up to kMaxRelayBelow in all; then one more.
  RelayNext wide{std::vector<RelayBranch>(
      16, {{"a", 1}, std::vector<RelayBranch>(16, RelayBranch{{"b", 2}, {}})})};
  std::size_t hosts = 16 + 256;
  for (auto& p : wide.peers)
    for (auto& b : p.below)
      for (; hosts < kMaxRelayBelow && b.below.size() < 16; ++hosts)
        b.below.push_back({{"c", 3}, {}});
  EXPECT_TRUE(decode_relay_next(encode(wide))) << "kMaxRelayBelow hosts";
  wide.peers.back().below.back().below.push_back({{"c", 3}, {}});
  EXPECT_FALSE(decode_relay_next(encode(wide))) << "one more";
  EXPECT_FALSE(decode_relay_peer(encode(RelayPeer{std::string(300, 'a'), 1})));
}

// A pipe holding `bytes`, then closed for writing; its read end.
int pipe_with(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), ssize_t(bytes.size()));
  ::close(fds[1]);
  return fds[0];
}

TEST(RelayFrames, AGoSaysWhetherTheStreamComesOnStdinAfterAll) {
  EXPECT_EQ(encode(RelayGo{}), "") << "a go as set up: the frame every go was";
  EXPECT_FALSE(decode_relay_go("")->over_stdin);
  EXPECT_TRUE(decode_relay_go(encode(RelayGo{true}))->over_stdin);
  EXPECT_FALSE(decode_relay_go(std::string(1, '\2')));
  EXPECT_FALSE(decode_relay_go(std::string(2, '\1'))) << "a byte past the field";
}

TEST(RelayFrames, AHostIsToldAsManyLevelsAsTheLimitHolds) {
  EXPECT_EQ(relay_depth(1), kMaxRelayDepth) << "a chain: three hosts after it";
  EXPECT_EQ(relay_depth(9), 3u) << "9 + 81 + 729";
  EXPECT_EQ(relay_depth(10), 2u) << "10 + 100, not 1000 more";
  EXPECT_EQ(relay_depth(16), 2u) << "16 + 256";
}

TEST(RelayFrames, ReadFrameTakesOneFrameAndLeavesTheRest) {
  int fd = pipe_with(encode_frame(FrameType::relay_go, "") + "stream bytes");
  auto frame = read_frame(fd, FrameType::relay_go);
  ASSERT_TRUE(frame) << frame.error();
  char rest[32] = {};
  EXPECT_EQ(::read(fd, rest, sizeof rest), 12);
  EXPECT_STREQ(rest, "stream bytes");
  ::close(fd);
}

TEST(RelayFrames, ReadFrameRefusesAnotherTypeACutFrameAndTheEnd) {
  int fd = pipe_with(encode_frame(FrameType::relay_next, encode(RelayNext{{{{"a", 1}, {}}}})));
  EXPECT_EQ(read_frame(fd, FrameType::relay_go).error(),
            "unexpected frame while setting up the relay");
  ::close(fd);
  fd = pipe_with(encode_frame(FrameType::relay_go, "").substr(0, 3));
  EXPECT_EQ(read_frame(fd, FrameType::relay_go).error(), "input ended before the relay was set up");
  ::close(fd);
  fd = pipe_with(std::string("G\xff\xff\xff\xff", 5));
  EXPECT_EQ(read_frame(fd, FrameType::relay_go).error(), "a frame over its limit");
  ::close(fd);
}

}  // namespace
}  // namespace pdx
