#include "transport/mux_protocol.h"

#include <gtest/gtest.h>

namespace pdx::mux {
namespace {

/// The one frame in `bytes`, parsed.
Frame parse(const std::string& bytes) {
  FrameParser parser;
  parser.feed(bytes);
  auto frame = parser.next();
  EXPECT_TRUE(frame.ok());
  EXPECT_TRUE(frame.ok() && frame->has_value());
  return frame.ok() && frame->has_value() ? **frame : Frame{};
}

TEST(MuxProtocol, OpenRoundTrips) {
  OpenRequest r{"fp\0x", Endpoint{"node01", "bob", 2222}, "bob@node01:2222", 5000, "/s/cm"};
  Frame frame = parse(encode_open(r));
  EXPECT_EQ(frame.type, Type::open);
  auto back = decode_open(frame.body);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->fingerprint, r.fingerprint);
  EXPECT_EQ(back->endpoint.host, "node01");
  EXPECT_EQ(back->endpoint.user, "bob");
  EXPECT_EQ(back->endpoint.port, 2222);
  EXPECT_EQ(back->label, r.label);
  EXPECT_EQ(back->connect_timeout_ms, std::optional<std::uint64_t>(5000));
  EXPECT_EQ(back->path, "/s/cm");
  r.connect_timeout_ms.reset();
  EXPECT_FALSE(decode_open(parse(encode_open(r)).body)->connect_timeout_ms);
}

TEST(MuxProtocol, ExecRoundTrips) {
  ExecStart e{"echo 'a b'", {{"PDX_RANK", "3"}, {"K", ""}}, 1500, true};
  auto back = decode_exec(parse(encode_exec(e)).body);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->command, e.command);
  EXPECT_EQ(back->env, e.env);
  EXPECT_EQ(back->timeout_ms, 1500u);
  EXPECT_TRUE(back->has_input);
}

TEST(MuxProtocol, OpenedSaysHowTheHostWasReached) {
  EXPECT_TRUE(*decode_opened(parse(encode_opened(true)).body));
  EXPECT_FALSE(*decode_opened(parse(encode_opened(false)).body));
  EXPECT_FALSE(*decode_opened(""));  // a holder that does not say: not over TCP
  EXPECT_FALSE(decode_opened(std::string(1, 2)).ok());
  EXPECT_FALSE(decode_opened(std::string(2, 1)).ok());
}

TEST(MuxProtocol, ResultAndOutputRoundTrip) {
  HostResult r;
  r.exit_status = 7;
  r.signal = "KILL";
  r.failure = Failure::command_timeout;
  r.error = "command timed out after 2s";
  auto back = decode_result(parse(encode_result(Type::result, r)).body);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->exit_status, 7);
  EXPECT_EQ(back->signal, "KILL");
  EXPECT_EQ(back->failure, Failure::command_timeout);
  EXPECT_EQ(back->error, r.error);
  auto out = decode_output(parse(encode_output(Stream::err, "x\0y")).body);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->first, Stream::err);
  EXPECT_EQ(out->second, std::string_view("x\0y"));
  EXPECT_EQ(*decode_u64(parse(encode_u64(Type::ack, 1ull << 40)).body), 1ull << 40);
}

TEST(MuxProtocol, FramesArriveInPieces) {
  std::string bytes = encode(Type::check) + encode_output(Stream::out, std::string(100000, 'a'));
  FrameParser parser;
  std::vector<Type> seen;
  for (char c : bytes) {
    parser.feed(std::string_view(&c, 1));
    auto frame = parser.next();
    ASSERT_TRUE(frame.ok());
    if (*frame) seen.push_back((*frame)->type);
  }
  EXPECT_EQ(seen, (std::vector<Type>{Type::check, Type::output}));
  EXPECT_EQ(parser.held(), 0u);
}

TEST(MuxProtocol, BadHeadersAreRefused) {
  for (std::string bad : {std::string("\0\0\0\0", 4),           // empty frame
                          std::string("\x7f\0\0\0\x01", 5),     // far too long
                          std::string("\0\0\0\x01\x20", 5),     // unknown type
                          std::string("\0\0\0\x01\xff", 5)}) {  // unknown type
    FrameParser parser;
    parser.feed(bad);
    EXPECT_FALSE(parser.next().ok());
  }
}

TEST(MuxProtocol, BadBodiesAreRefused) {
  std::string open = parse(encode_open({"f", Endpoint{"h", "", 0}, "h", {}, "p"})).body;
  EXPECT_FALSE(decode_open(open.substr(0, open.size() - 1)).ok());  // cut short
  EXPECT_FALSE(decode_open(open + "x").ok());                       // trailing bytes
  EXPECT_FALSE(decode_open(parse(encode_open({"f", Endpoint{"", "", 0}, "", {}, ""})).body).ok());
  std::string huge = open;
  huge[0] = '\x7f';  // a string longer than the frame
  EXPECT_FALSE(decode_open(huge).ok());
  HostResult r;
  r.failure = Failure::local;
  std::string result = parse(encode_result(Type::result, r)).body;
  result[4 + 4 + 3] = 100;  // a failure past the last
  EXPECT_FALSE(decode_result(result).ok());
  r.failure = Failure::none;
  r.error = "two\nlines";
  EXPECT_FALSE(decode_result(parse(encode_result(Type::result, r)).body).ok());
  r.error.clear();
  r.exit_status = 256;
  EXPECT_FALSE(decode_result(parse(encode_result(Type::result, r)).body).ok());
  EXPECT_FALSE(decode_output("").ok());
  EXPECT_FALSE(decode_output("\x03x").ok());
  std::string exec = parse(encode_exec({"c", {}, 0, false})).body;
  exec.back() = 2;
  EXPECT_FALSE(decode_exec(exec).ok());
  EXPECT_FALSE(decode_u64("1234567").ok());
}

}  // namespace
}  // namespace pdx::mux
