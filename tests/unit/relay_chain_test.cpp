#include "distribute/relay/relay_chain.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "base/fd.h"

namespace pdx {
namespace {

// Everything `input` has to give now (its pieces consumed), and the state it stopped at.
std::pair<std::string, InputPiece::State> drain(InputSource& input) {
  std::string bytes;
  for (;;) {
    InputPiece piece = input.next();
    if (piece.state != InputPiece::State::data) return {bytes, piece.state};
    bytes.append(piece.bytes);
    input.consume(piece.bytes.size());
  }
}

// The frames of `bytes`, by type.
std::vector<FrameType> types(const std::string& bytes) {
  FrameDecoder decoder;
  decoder.feed(bytes);
  std::vector<FrameType> out;
  for (auto frame = decoder.next(); frame && *frame; frame = decoder.next())
    out.push_back((*frame)->type);
  return out;
}

// The host that host k > 0 takes the stream from: relay_children's inverse.
std::size_t relay_parent(std::size_t k, std::size_t fanout) {
  return (k - 1) / fanout;
}

// Links from the head to the farthest host (the last): n - 1 for a chain, about log_fanout(n)
// for a tree.
std::size_t relay_depth(std::size_t n, std::size_t fanout) {
  std::size_t depth = 0;
  for (std::size_t k = n > 0 ? n - 1 : 0; k > 0; k = relay_parent(k, fanout)) ++depth;
  return depth;
}

std::string said(FrameType type, const std::string& payload) {
  return encode_frame(type, payload);
}

TEST(RelayShape, AChainIsTheTreeOfFanOutOne) {
  EXPECT_EQ(relay_children(0, 4, 1), (std::pair<std::size_t, std::size_t>{1, 2}));
  EXPECT_EQ(relay_children(3, 4, 1), (std::pair<std::size_t, std::size_t>{4, 4}));  // the tail
  EXPECT_EQ(relay_parent(3, 1), 2u);
  EXPECT_EQ(relay_depth(4, 1), 3u);
  EXPECT_EQ(relay_depth(1, 1), 0u);
}

TEST(RelayShape, ATreeIsBreadthFirstEveryHostOnceUnderItsParent) {
  // 7 hosts, fan-out 2: 0 -> 1 2, 1 -> 3 4, 2 -> 5 6.
  EXPECT_EQ(relay_children(0, 7, 2), (std::pair<std::size_t, std::size_t>{1, 3}));
  EXPECT_EQ(relay_children(2, 7, 2), (std::pair<std::size_t, std::size_t>{5, 7}));
  EXPECT_EQ(relay_children(3, 7, 2), (std::pair<std::size_t, std::size_t>{7, 7}));
  EXPECT_EQ(relay_depth(7, 2), 2u);
  for (std::size_t n : {2, 7, 10, 16, 17, 100})
    for (std::size_t fanout : {2, 3, 4, 16}) {
      std::vector<int> parents(n, 0);
      for (std::size_t k = 0; k < n; ++k) {
        auto [first, last] = relay_children(k, n, fanout);
        EXPECT_LE(last - first, fanout);
        for (std::size_t c = first; c < last; ++c) {
          ++parents[c];
          EXPECT_EQ(relay_parent(c, fanout), k);
        }
      }
      EXPECT_EQ(parents[0], 0) << "the head takes from nobody";
      for (std::size_t k = 1; k < n; ++k)
        EXPECT_EQ(parents[k], 1) << n << " " << fanout << " " << k;
    }
}

TEST(RelayShape, NotAMultipleOfTheFanOutLeavesTheLastParentShort) {
  // 10 hosts, fan-out 4: 0 -> 1..4, 1 -> 5..8, 2 -> 9 only.
  EXPECT_EQ(relay_children(1, 10, 4), (std::pair<std::size_t, std::size_t>{5, 9}));
  EXPECT_EQ(relay_children(2, 10, 4), (std::pair<std::size_t, std::size_t>{9, 10}));
  EXPECT_EQ(relay_children(3, 10, 4), (std::pair<std::size_t, std::size_t>{10, 10}));
  EXPECT_EQ(relay_depth(10, 4), 2u);
  EXPECT_EQ(relay_depth(16, 4), 2u);
  EXPECT_EQ(relay_depth(21, 4), 2u);
  EXPECT_EQ(relay_depth(22, 4), 3u);
}

TEST(RelayShape, AFanOutOfAtLeastTheHostsIsAStarFromTheHead) {
  EXPECT_EQ(relay_children(0, 5, 16), (std::pair<std::size_t, std::size_t>{1, 5}));
  EXPECT_EQ(relay_children(1, 5, 16), (std::pair<std::size_t, std::size_t>{5, 5}));
  EXPECT_EQ(relay_depth(5, 16), 1u);
  EXPECT_EQ(relay_depth(6, 4), 2u);
}

struct RelayChain : ::testing::Test {
  RelayChain() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read_end.reset(fds[0]);
    Fd write_end(fds[1]);
    EXPECT_EQ(::write(write_end.get(), "frames", 6), 6);
    chain.emplace(std::vector<std::string>{"h1", "h2"}, std::string(32, 's'), RelayOptions{},
                  read_end.get(), Broadcast::Options{});
  }
  Fd read_end;
  std::optional<Chain> chain;
};

TEST_F(RelayChain, SetupNextAndGoThenTheHeadStreams) {
  ChainInput head(*chain, 0), tail(*chain, 1);
  ChainReply head_says(*chain, 0), tail_says(*chain, 1);
  auto [sent, state] = drain(head);
  EXPECT_EQ(types(sent), std::vector<FrameType>{FrameType::relay_setup});
  EXPECT_EQ(state, InputPiece::State::wait);  // for h2's address

  tail_says.output(1, Stream::out,
                   said(FrameType::relay_listening, encode(RelayPeer{"127.0.0.2", 4000})));
  auto tail_sent = drain(tail);
  EXPECT_EQ(types(tail_sent.first),
            (std::vector<FrameType>{FrameType::relay_setup, FrameType::relay_next}));
  EXPECT_EQ(types(drain(head).first), std::vector<FrameType>{FrameType::relay_next});

  head_says.output(0, Stream::out, said(FrameType::relay_linked, encode(RelayStatus{})));
  EXPECT_EQ(drain(head).second, InputPiece::State::wait);  // for h2's link
  tail_says.output(1, Stream::out, said(FrameType::relay_linked, encode(RelayStatus{})));
  EXPECT_EQ(types(drain(tail).first), std::vector<FrameType>{FrameType::relay_go});

  std::string streamed;
  for (int i = 0; i < 200; ++i) {  // relay_go, then the stream to its end
    auto [bytes, now] = drain(head);
    streamed += bytes;
    if (now != InputPiece::State::wait) break;
    ::usleep(5000);
  }
  EXPECT_TRUE(streamed.ends_with("frames")) << streamed;
  std::string reason;
  EXPECT_FALSE(chain->called_off(reason));
}

TEST_F(RelayChain, ATreesHeadIsToldWhereAllItsChildrenListen) {
  RelayOptions tree;
  tree.fanout = 2;
  Chain three({"h1", "h2", "h3"}, std::string(32, 's'), tree, read_end.get(), {});
  ChainInput head(three, 0);
  ChainReply left(three, 1), right(three, 2);
  drain(head);
  left.output(1, Stream::out,
              said(FrameType::relay_listening, encode(RelayPeer{"127.0.0.2", 4000})));
  EXPECT_EQ(drain(head).second, InputPiece::State::wait);  // for h3's address too
  right.output(2, Stream::out,
               said(FrameType::relay_listening, encode(RelayPeer{"127.0.0.3", 4001})));
  FrameDecoder decoder;
  decoder.feed(drain(head).first);
  auto frame = decoder.next();
  ASSERT_TRUE(frame && *frame);
  ASSERT_EQ((*frame)->type, FrameType::relay_next);
  auto next = decode_relay_next((*frame)->payload);
  ASSERT_TRUE(next);
  ASSERT_EQ(next->peers.size(), 2u);
  EXPECT_EQ(next->peers[0].peer.address, "127.0.0.2");
  EXPECT_EQ(next->peers[1].peer.port, 4001);
  EXPECT_TRUE(next->peers[0].below.empty() && next->peers[1].below.empty()) << "both leaves";
  ChainInput leaf(three, 2);
  auto [sent, state] = drain(leaf);
  EXPECT_EQ(types(sent), (std::vector<FrameType>{FrameType::relay_setup, FrameType::relay_next}));
}

// The relay_next host k of `chain` is sent, once it is ready.
Result<RelayNext> next_of(Chain& chain, std::size_t k) {
  ChainInput input(chain, k);
  FrameDecoder decoder;
  decoder.feed(drain(input).first);
  for (;;) {
    auto frame = decoder.next();
    if (!frame || !*frame) return Error{"no relay_next"};
    if ((*frame)->type == FrameType::relay_next) return decode_relay_next((*frame)->payload);
  }
}

// The addresses of a chain's branch, level by level.
std::vector<std::string> addresses(const RelayNext& next) {
  std::vector<std::string> all;
  for (auto* level = &next.peers; !level->empty(); level = &level->front().below) {
    EXPECT_EQ(level->size(), 1u) << "a chain";
    all.push_back(level->front().peer.address);
  }
  return all;
}

TEST_F(RelayChain, AHostIsToldWhereTheHostsAfterItsNextListenToo) {
  std::vector<std::string> labels{"h1", "h2", "h3", "h4", "h5"};
  Chain five(labels, std::string(32, 's'), RelayOptions{}, read_end.get(), {});
  std::vector<ChainReply> says;
  for (std::size_t k = 0; k < 5; ++k) says.emplace_back(five, k);
  auto listens = [&](std::size_t k) {
    says[k].output(k, Stream::out,
                   said(FrameType::relay_listening,
                        encode(RelayPeer{"127.0.0." + std::to_string(k + 1), std::uint16_t(k)})));
  };
  for (std::size_t k = 1; k < 4; ++k) listens(k);
  EXPECT_FALSE(next_of(five, 1)) << "h2 waits for h5's address: h5 is three hosts after h2";
  auto head = next_of(five, 0);
  ASSERT_TRUE(head) << head.error();
  EXPECT_EQ(addresses(*head), (std::vector<std::string>{"127.0.0.2", "127.0.0.3", "127.0.0.4"}))
      << "kMaxRelayDepth hosts after it, not h5";
  listens(4);
  auto second = next_of(five, 1);
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(addresses(*second), (std::vector<std::string>{"127.0.0.3", "127.0.0.4", "127.0.0.5"}));
  auto last_but_one = next_of(five, 3);
  ASSERT_TRUE(last_but_one);
  EXPECT_EQ(addresses(*last_but_one), std::vector<std::string>{"127.0.0.5"})
      << "h5 forwards to nobody";
  EXPECT_TRUE(next_of(five, 4)->peers.empty());
}

TEST_F(RelayChain, ATreesHostIsToldTheLevelsBelowItsChildrenTheLimitHolds) {
  RelayOptions wide;
  wide.fanout = 16;  // 16 + 256 hosts below the head, not the 4096 of a third level
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < 300; ++k) labels.push_back("h" + std::to_string(k + 1));
  Chain tree(labels, std::string(32, 's'), wide, read_end.get(), {});
  std::vector<ChainReply> says;
  for (std::size_t k = 0; k < labels.size(); ++k) says.emplace_back(tree, k);
  for (std::size_t k = 1; k < 273; ++k)
    says[k].output(k, Stream::out, said(FrameType::relay_listening, encode(RelayPeer{"a", 1})));
  auto head = next_of(tree, 0);
  ASSERT_TRUE(head) << head.error() << ": h274 and after are not below the head's two levels";
  ASSERT_EQ(head->peers.size(), 16u);
  EXPECT_EQ(head->peers[15].below.size(), 16u);
  EXPECT_TRUE(head->peers[0].below[0].below.empty()) << "two levels";
  EXPECT_FALSE(next_of(tree, 1)) << "h2's children's children (h274...) have not said";
}

TEST_F(RelayChain, AHostThatEndsBeforeTheLinkCallsItOff) {
  ChainInput head(*chain, 0);
  drain(head);
  chain->ended(1, "");
  EXPECT_EQ(drain(head).second, InputPiece::State::end);
  std::string reason;
  EXPECT_TRUE(chain->called_off(reason));
  EXPECT_EQ(reason, "h2: ended before the relay linked up");
  char byte;
  EXPECT_EQ(::read(read_end.get(), &byte, 1), 1);  // the stream was not read: it is the caller's
}

TEST_F(RelayChain, RepliesKeepTheReceiveFramesAndAMalformedOneCallsItOff) {
  ChainReply reply(*chain, 1);
  std::string summary = said(FrameType::summary, encode(Summary{1, 5, 0}));
  reply.output(1, Stream::out, said(FrameType::relay_end, encode(RelayStatus{"broken pipe"})));
  reply.output(1, Stream::out, summary);
  reply.output(1, Stream::err, "warning\n");
  EXPECT_EQ(reply.host().reply.out, summary);
  EXPECT_EQ(reply.host().reply.err, "warning\n");
  EXPECT_EQ(reply.host().forward_error, "broken pipe");

  ChainReply bad(*chain, 0);
  bad.output(0, Stream::out, said(FrameType::relay_linked, "\xff"));
  EXPECT_TRUE(bad.host().error.starts_with("malformed reply from the agent: ")) << bad.host().error;
  std::string reason;
  EXPECT_TRUE(chain->called_off(reason));
  EXPECT_TRUE(reason.starts_with("h1: malformed reply from the agent")) << reason;
}

}  // namespace
}  // namespace pdx
