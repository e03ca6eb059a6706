#include "distribute/relay_chain.h"

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

std::string said(FrameType type, const std::string& payload) {
  return encode_frame(type, payload);
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
