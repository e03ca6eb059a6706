#include "agent/delta_protocol.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

std::string frame(FrameType t, const std::string& payload) {
  return encode_frame(t, payload);
}

Signature signature_of_size(std::uint64_t size) {
  Signature s{size, block_length(size), {}};
  for (std::uint64_t i = 0; i < block_count(size, s.block); ++i)
    s.blocks.push_back(BlockSum{static_cast<std::uint32_t>(i), strong_hash(&i, sizeof i)});
  return s;
}

std::string reply_of(const std::string& name, const Signature& s) {
  std::string out =
      frame(FrameType::sig_reply, encode(SignatureReply{name, OldState::changed, s.size, s.block}));
  for (std::size_t i = 0; i < s.blocks.size(); i += kBlocksPerFrame)
    out +=
        frame(FrameType::sig_blocks,
              encode_blocks(s.blocks.data() + i, std::min(kBlocksPerFrame, s.blocks.size() - i)));
  return out;
}

const std::string kSummary = encode_frame(FrameType::summary, encode(Summary{}));

TEST(DeltaProtocolTest, MessagesRoundTrip) {
  SignatureRequest rq{"a/b", 123, -5, false};
  EXPECT_EQ(*decode_signature_request(encode(rq)), rq);
  auto rp = decode_signature_reply(encode(SignatureReply{"x", OldState::changed, 5000, 700}));
  ASSERT_TRUE(rp.ok());
  EXPECT_EQ(rp->size, 5000u);
  DeltaHeader h{"d/f", 0755, 17, 999, 4000, 700};
  auto hd = decode_delta_header(encode(h));
  ASSERT_TRUE(hd.ok());
  EXPECT_EQ(hd->name, "d/f");
  EXPECT_EQ(hd->mode, 0755u);
  EXPECT_EQ(hd->basis_size, 4000u);
  DeltaEnd e{42, strong_hash("x", 1)};
  auto ed = decode_delta_end(encode(e));
  ASSERT_TRUE(ed.ok());
  EXPECT_EQ(ed->hash, e.hash);
}

TEST(DeltaProtocolTest, HostileMessagesAreRefused) {
  EXPECT_FALSE(decode_signature_reply(encode(SignatureReply{"../x", OldState::same})).ok());
  EXPECT_FALSE(
      decode_signature_reply(encode(SignatureReply{"x", OldState::changed, 5000, 800})).ok());
  std::string bad_state = encode(SignatureReply{"x", OldState::same});
  bad_state.back() = 'z';
  EXPECT_FALSE(decode_signature_reply(bad_state).ok());
  EXPECT_FALSE(decode_delta_header(encode(DeltaHeader{"x", 0644, 0, 0, 0, 10})).ok());
  EXPECT_FALSE(decode_delta_header(encode(DeltaHeader{"/x", 0644, 0, 0, 0, 700})).ok());
  std::string end = encode(DeltaEnd{});
  EXPECT_FALSE(decode_delta_end(end.substr(0, end.size() - 1)).ok());
  EXPECT_FALSE(decode_delta_end(end + "x").ok());
}

TEST(DeltaProtocolTest, SignaturesParseInTheOrderAsked) {
  Signature big = signature_of_size(std::uint64_t{1} << 32);  // 65536 blocks: two frames
  Signature small = signature_of_size(1500);
  std::vector<SignatureRequest> asked = {
      {"big", 1, 0, true}, {"gone", 1, 0, true}, {"small", 1, 0, true}, {"dry", 1, 0, false}};
  std::string reply =
      reply_of("big", big) +
      frame(FrameType::sig_reply, encode(SignatureReply{"gone", OldState::missing})) +
      reply_of("small", small) +
      frame(FrameType::sig_reply, encode(SignatureReply{"dry", OldState::changed, 10, 700})) +
      kSummary;
  auto parsed = parse_signatures(reply, asked);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  ASSERT_EQ(parsed->size(), 4u);
  EXPECT_EQ((*parsed)[0].signature, big);
  EXPECT_EQ((*parsed)[1].state, OldState::missing);
  EXPECT_EQ((*parsed)[2].signature, small);
  EXPECT_EQ((*parsed)[3].state, OldState::changed);
  EXPECT_TRUE((*parsed)[3].signature.blocks.empty());
}

TEST(DeltaProtocolTest, HostileSignatureRepliesFailTheHost) {
  Signature s = signature_of_size(3000);
  std::vector<SignatureRequest> asked = {{"f", 1, 0, true}};
  std::string good = reply_of("f", s);
  std::string one_block = frame(FrameType::sig_blocks, encode_blocks(s.blocks.data(), 1));
  std::string head = good.substr(0, good.find(static_cast<char>(FrameType::sig_blocks), 5));
  const std::vector<std::string> hostile = {
      "",                                                     // nothing
      good,                                                   // no summary
      good + kSummary + kSummary,                             // bytes after it
      head + kSummary,                                        // blocks missing
      good + one_block + kSummary,                            // a block too many
      reply_of("other", s) + kSummary,                        // not asked for
      good + reply_of("f", s) + kSummary,                     // asked once
      head + frame(FrameType::sig_blocks, "abc") + kSummary,  // not whole blocks
      head + frame(FrameType::sig_blocks, "") + kSummary,
      good + frame(FrameType::written, "") + kSummary,  // a frame of another exchange
      (good + kSummary).substr(0, good.size() + 3),     // cut inside a frame
      frame(FrameType::sig_reply,
            encode(SignatureReply{"f", OldState::changed, std::uint64_t{1} << 62,
                                  block_length(std::uint64_t{1} << 62)})) +
          kSummary,
  };
  for (std::size_t i = 0; i < hostile.size(); ++i)
    EXPECT_FALSE(parse_signatures(hostile[i], asked).ok()) << i;
  EXPECT_TRUE(parse_signatures(good + kSummary, asked).ok());
}

class Ops final : public DeltaSink {
 public:
  Result<void> copy(std::uint64_t first, std::uint64_t count) override {
    log += "C" + std::to_string(first) + "+" + std::to_string(count) + " ";
    return {};
  }
  Result<void> literal(std::string_view bytes) override {
    log += "L" + std::to_string(bytes.size()) + " ";
    return {};
  }
  std::string log;
};

TEST(DeltaProtocolTest, OpsRoundTripInFramesOfBoundedSize) {
  std::vector<std::string> payloads;
  OpsEncoder enc([&](std::string_view p) -> Result<void> {
    EXPECT_LE(p.size(), kDataChunk);
    payloads.emplace_back(p);
    return {};
  });
  std::string expected;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(enc.copy(i, 3).ok());
    ASSERT_TRUE(enc.literal(std::string(kMaxLiteral, 'x')).ok());
    expected += "C" + std::to_string(i) + "+3 L" + std::to_string(kMaxLiteral) + " ";
  }
  ASSERT_TRUE(enc.finish().ok());
  EXPECT_GT(payloads.size(), 2u);
  Ops ops;
  for (const auto& p : payloads) ASSERT_TRUE(decode_ops(p, ops).ok());
  EXPECT_EQ(ops.log, expected);
}

TEST(DeltaProtocolTest, MalformedOpsAreErrors) {
  std::string payload;
  OpsEncoder enc([&](std::string_view p) -> Result<void> {
    payload = p;
    return {};
  });
  ASSERT_TRUE(enc.copy(1, 2).ok());
  ASSERT_TRUE(enc.literal("abc").ok());
  ASSERT_TRUE(enc.finish().ok());
  Ops ops;
  EXPECT_FALSE(decode_ops(payload.substr(0, payload.size() - 1), ops).ok());
  EXPECT_FALSE(decode_ops(payload + "Z", ops).ok());
  std::string empty_literal = std::string("L") + std::string(4, '\0');
  EXPECT_FALSE(decode_ops(empty_literal, ops).ok());
  std::string huge_literal = "L\x7f\xff\xff\xff";
  EXPECT_FALSE(decode_ops(huge_literal, ops).ok());
}

}  // namespace
}  // namespace pdx
