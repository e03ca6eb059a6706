#include "agent/agent_protocol.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "tests/unit/pipe_feeder.h"

namespace pdx {
namespace {

std::vector<Frame> decode_all(const std::string& bytes, std::size_t piece) {
  FrameDecoder d;
  std::vector<Frame> frames;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    d.feed(std::string_view(bytes).substr(at, piece));
    for (;;) {
      auto f = d.next();
      EXPECT_TRUE(f.ok());
      if (!f.ok() || !*f) break;
      frames.push_back(std::move(**f));
    }
  }
  EXPECT_FALSE(d.partial());
  return frames;
}

TEST(AgentProtocol, FramesSurviveAnySplit) {
  std::string bytes = encode_frame(FrameType::file, "abc") + encode_frame(FrameType::data, "") +
                      encode_frame(FrameType::done, std::string(70000, 'x'));
  for (std::size_t piece : {1, 2, 5, 7, 4096, 100000}) {
    auto frames = decode_all(bytes, piece);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0].type, FrameType::file);
    EXPECT_EQ(frames[0].payload, "abc");
    EXPECT_EQ(frames[1].payload, "");
    EXPECT_EQ(frames[2].payload.size(), 70000u);
  }
}

TEST(AgentProtocol, TruncatedFrameIsPartial) {
  FrameDecoder d;
  std::string bytes = encode_frame(FrameType::data, "hello");
  d.feed(bytes.substr(0, bytes.size() - 1));
  auto f = d.next();
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(*f);
  EXPECT_TRUE(d.partial());
}

TEST(AgentProtocol, BadTypeIsAnError) {
  FrameDecoder d;
  d.feed("?\0\0\0\0");
  auto f = d.next();
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error_kind(), ErrorKind::bad_input);
}

TEST(AgentProtocol, OversizeLengthIsAnErrorBeforeThePayload) {
  FrameDecoder d;
  d.feed(std::string("D\xff\xff\xff\xff", 5));
  auto f = d.next();
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().find("over the limit"), std::string::npos);
}

TEST(AgentProtocol, MessagesRoundTrip) {
  FileHeader h{"a b/c'd", 0755, -5, 42, 1ull << 40};
  auto h2 = decode_file_header(encode(h));
  ASSERT_TRUE(h2.ok()) << h2.error();
  EXPECT_EQ(h2->name, h.name);
  EXPECT_EQ(h2->mode, 0755u);
  EXPECT_EQ(h2->mtime_sec, -5);
  EXPECT_EQ(h2->mtime_nsec, 42u);
  EXPECT_EQ(h2->size, 1ull << 40);

  Entry e{"x", EntryKind::directory, 0700, 9, 1234567890};
  auto e2 = decode_entry(encode(e));
  ASSERT_TRUE(e2.ok());
  EXPECT_EQ(e2->kind, EntryKind::directory);
  EXPECT_EQ(e2->mtime_sec, 1234567890);

  auto s = decode_summary(encode(Summary{3, 4, 5}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->failures, 5u);
  auto w = decode_written(encode(Written{"n", 7}));
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->bytes, 7u);
  auto end = decode_file_end(encode(FileEnd{std::string(32, 'a')}));
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->xxh3_128, std::string(32, 'a'));
  EXPECT_TRUE(decode_file_end(encode(FileEnd{kAbandoned})).ok());
}

TEST(AgentProtocol, FrameHeaderIsEncodeFramesOwn) {
  auto header = frame_header(FrameType::data, 0x01020304);
  EXPECT_EQ(std::string(header.data(), header.size()), std::string("D\x01\x02\x03\x04", 5));
  std::string frame = encode_frame(FrameType::file, "abc");
  header = frame_header(FrameType::file, 3);
  EXPECT_EQ(frame, std::string(header.data(), header.size()) + "abc");
}

// Every frame FrameReader reads from a pipe fed `bytes`, and how it ended.
std::pair<std::vector<Frame>, Result<void>> read_all(std::string bytes) {
  std::signal(SIGPIPE, SIG_IGN);  // the reader may stop before the feeder is done
  test::PipeFeeder in(std::move(bytes));
  FrameReader reader(in.fd());
  std::vector<Frame> frames;
  for (;;) {
    auto f = reader.next();
    if (!f) return {frames, Error{f.error(), f.error_kind()}};
    if (!*f) return {frames, {}};
    frames.push_back(Frame{(*f)->type, std::string((*f)->payload)});
  }
}

TEST(AgentProtocol, FrameReaderReadsEveryFrameWhole) {
  // Frames of the largest size between small ones, so that what came of one often has to move to
  // the front of the reader's buffer.
  std::vector<std::string> payloads;
  for (int i = 0; i < 12; ++i) {
    payloads.push_back(
        std::string(i % 3 == 0 ? kMaxPayload : 70001 * i, static_cast<char>('a' + i)));
    payloads.push_back(std::to_string(i));
    payloads.push_back("");
  }
  std::string bytes;
  for (const auto& p : payloads) bytes += encode_frame(FrameType::data, p);
  auto [frames, end] = read_all(bytes + encode_frame(FrameType::done, ""));
  ASSERT_TRUE(end.ok()) << end.error();
  ASSERT_EQ(frames.size(), payloads.size() + 1);
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    EXPECT_EQ(frames[i].type, FrameType::data);
    EXPECT_TRUE(frames[i].payload == payloads[i]) << i;
  }
  EXPECT_EQ(frames.back().type, FrameType::done);
}

TEST(AgentProtocol, FrameReaderEndsBetweenFramesOnly) {
  std::string bytes = encode_frame(FrameType::file, "abc") + encode_frame(FrameType::data, "hello");
  auto [frames, end] = read_all(bytes);
  EXPECT_TRUE(end.ok());
  EXPECT_EQ(frames.size(), 2u);
  for (std::size_t cut : {1, 4, 5, 9}) {
    auto [cut_frames, cut_end] = read_all(bytes.substr(0, bytes.size() - cut));
    EXPECT_EQ(cut_frames.size(), 1u) << cut;
    ASSERT_FALSE(cut_end.ok()) << cut;
    EXPECT_EQ(cut_end.error(), "input ended inside a frame");
    EXPECT_EQ(cut_end.error_kind(), ErrorKind::bad_input);
  }
  EXPECT_TRUE(read_all("").second.ok());
}

// A FrameInput of given bytes, handing out as many as asked for.
class BytesFrameInput final : public FrameInput {
 public:
  explicit BytesFrameInput(std::string bytes) : bytes_(std::move(bytes)) {}
  Result<std::size_t> read(char* to, std::size_t size) override {
    std::size_t n = std::min(size, bytes_.size() - at_);
    std::memcpy(to, bytes_.data() + at_, n);
    at_ += n;
    return n;
  }
  std::string_view rest() const { return std::string_view(bytes_).substr(at_); }

 private:
  std::string bytes_;
  std::size_t at_ = 0;
};

TEST(AgentProtocol, FrameReaderWithoutReadAheadLeavesWhatFollows) {
  std::string frames = encode_frame(FrameType::sig_request, std::string(100, 'a')) +
                       encode_frame(FrameType::done, "");
  BytesFrameInput input(frames + "r and the next step's stream");
  FrameReader reader(input, FrameReader::ReadAhead::no);
  for (FrameType want : {FrameType::sig_request, FrameType::done}) {
    auto frame = reader.next();
    ASSERT_TRUE(frame.ok() && *frame);
    EXPECT_EQ((*frame)->type, want);
  }
  EXPECT_EQ(input.rest(), "r and the next step's stream");

  BytesFrameInput ahead(frames + "r");
  FrameReader eager(ahead);  // reads on past the frames it hands out
  ASSERT_TRUE(eager.next().ok());
  EXPECT_EQ(ahead.rest(), "");
}

TEST(AgentProtocol, FirstReplySizeEndsAtTheFirstSummary) {
  std::string first = encode_frame(FrameType::sig_reply, "x") +
                      encode_frame(FrameType::summary, encode(Summary{1, 2, 0}));
  std::string second =
      encode_frame(FrameType::entry, "y") + encode_frame(FrameType::summary, encode(Summary{}));
  auto size = first_reply_size(first + second);
  ASSERT_TRUE(size.ok()) << size.error();
  EXPECT_EQ(*size, first.size());
  EXPECT_FALSE(first_reply_size(second.substr(0, second.size() - 1)).ok());  // cut short
  EXPECT_FALSE(first_reply_size(encode_frame(FrameType::entry, "y")).ok());  // no summary
  EXPECT_FALSE(first_reply_size(std::string("?\0\0\0\0", 5) + first).ok());
  EXPECT_FALSE(first_reply_size("").ok());
}

TEST(AgentProtocol, FrameReaderRefusesWhatFrameDecoderRefuses) {
  for (std::string bad : {std::string("?\0\0\0\0", 5), std::string("D\xff\xff\xff\xff", 5)}) {
    auto [frames, end] =
        read_all(encode_frame(FrameType::file, "abc") + bad + std::string(100, 'x'));
    EXPECT_EQ(frames.size(), 1u);
    ASSERT_FALSE(end.ok());
    EXPECT_EQ(end.error_kind(), ErrorKind::bad_input);
  }
}

TEST(AgentProtocol, TruncatedOrTrailingFieldsAreErrors) {
  std::string p = encode(FileHeader{"name", 0644, 1, 2, 3});
  for (std::size_t n = 0; n < p.size(); ++n)
    EXPECT_FALSE(decode_file_header(p.substr(0, n)).ok()) << n;
  EXPECT_FALSE(decode_file_header(p + "x").ok());
  std::string d = encode(Directory{"dir", 0700});
  for (std::size_t n = 0; n < d.size(); ++n) EXPECT_FALSE(decode_directory(d.substr(0, n)).ok());
  EXPECT_FALSE(decode_directory(d + "x").ok());
  EXPECT_FALSE(decode_summary("").ok());
  EXPECT_FALSE(decode_file_end(encode(FileEnd{"short"})).ok());
  EXPECT_FALSE(decode_file_end(encode(FileEnd{std::string(32, 'G')})).ok());
  EXPECT_FALSE(decode_file_end(encode(FileEnd{std::string(64, 'a')})).ok());  // SHA-256's size
}

TEST(AgentProtocol, StringLengthBeyondPayloadIsAnError) {
  std::string p("\xff\xff\xff\xf0", 4);
  EXPECT_FALSE(decode_written(p + std::string(8, '\0')).ok());
}

TEST(AgentProtocol, UnsafeNamesAreRefused) {
  for (std::string bad :
       std::vector<std::string>{"/etc/passwd", "..", "a/../b", "a//b", "./a", "a/",
                                std::string("a\0b", 3), std::string(kMaxName + 1, 'a')}) {
    EXPECT_FALSE(check_name(bad).ok()) << bad;
    EXPECT_FALSE(decode_file_header(encode(FileHeader{bad})).ok()) << bad;
    EXPECT_FALSE(decode_entry(encode(Entry{bad})).ok()) << bad;
    EXPECT_FALSE(decode_directory(encode(Directory{bad})).ok()) << bad;
    EXPECT_FALSE(decode_written(encode(Written{bad})).ok()) << bad;
  }
  auto refused = decode_directory(encode(Directory{"a/../b"}));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("unsafe name 'a/../b'"), std::string::npos) << refused.error();
  for (std::string good :
       std::vector<std::string>{"", "a", "a/b", "..a", "a..", "-x", "$(id)", "new\nline"})
    EXPECT_TRUE(check_name(good).ok()) << good;
}

TEST(AgentProtocol, BadEntryKindIsAnError) {
  std::string p = encode(Entry{"x", EntryKind::file});
  p[5] = 'z';  // the kind byte, after the name's length (4) and its one byte
  EXPECT_FALSE(decode_entry(p).ok());
}

TEST(AgentProtocol, EntryHashRoundTrips) {
  std::string xxh3(32, 'f');
  auto e = decode_entry(encode(Entry{"x", EntryKind::file, 0644, 3, 4, xxh3}));
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->digest, xxh3);
  auto none = decode_entry(encode(Entry{"x", EntryKind::file}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->digest, "");  // not asked for, or unreadable on the host
}

TEST(AgentProtocol, EntryTimeRoundTripsToTheNanosecond) {
  auto e = decode_entry(encode(Entry{"x", EntryKind::file, 0644, 3, -4, "", "", 999999999}));
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->mtime_sec, -4);
  EXPECT_EQ(e->mtime_nsec, 999999999u);
  EXPECT_FALSE(decode_entry(encode(Entry{"x", EntryKind::file, 0644, 3, 4, "", "", 1000000000}))
                   .ok());  // from a host: untrusted
}

// The same second, and the nanoseconds as far as the host keeps them.
TEST(AgentProtocol, SameMtimeIsToTheNanosecondTheHostKeeps) {
  EXPECT_TRUE(same_mtime(5, 123456789, 5, 123456789));
  EXPECT_TRUE(same_mtime(5, 123456700, 5, 123456789));  // 100 ns: CIFS, NTFS
  EXPECT_TRUE(same_mtime(5, 123456000, 5, 123456789));  // microseconds
  EXPECT_TRUE(same_mtime(5, 0, 5, 123456789));          // whole seconds
  EXPECT_FALSE(same_mtime(5, 123456788, 5, 123456789));
  EXPECT_FALSE(same_mtime(5, 123456789, 5, 0));  // written since
  EXPECT_FALSE(same_mtime(5, 123000001, 5, 123456789));
  EXPECT_FALSE(same_mtime(4, 123456789, 5, 123456789));
}

TEST(AgentProtocol, BadEntryHashesAreErrors) {  // from a host: untrusted
  for (std::string bad :
       {std::string(31, 'a'), std::string(33, 'a'), std::string(64, 'a'), std::string(32, 'A'),
        std::string(31, 'a') + "g", std::string(31, 'a') + '\0'})
    EXPECT_FALSE(decode_entry(encode(Entry{"x", EntryKind::file, 0644, 1, 2, bad})).ok()) << bad;
  // Only regular files are hashed.
  EXPECT_FALSE(
      decode_entry(encode(Entry{"x", EntryKind::directory, 0755, 0, 0, std::string(32, 'a')}))
          .ok());
  // A hash length beyond the payload, and one cut short.
  std::string p = encode(Entry{"x", EntryKind::file, 0644, 1, 2, std::string(32, 'a')});
  for (std::size_t n = 0; n < p.size(); ++n) EXPECT_FALSE(decode_entry(p.substr(0, n)).ok()) << n;
  std::string huge = encode(Entry{"x", EntryKind::file});
  huge.replace(huge.size() - 4, 4, std::string("\xff\xff\xff\xff", 4));
  EXPECT_FALSE(decode_entry(huge).ok());
}

TEST(AgentProtocol, SymlinksAndDirectoriesRoundTrip) {
  auto l = decode_symlink(encode(Symlink{"snapshots/r/model", "../../blobs/ab cd", 7, 8}));
  ASSERT_TRUE(l.ok()) << l.error();
  EXPECT_EQ(l->name, "snapshots/r/model");
  EXPECT_EQ(l->target, "../../blobs/ab cd");
  EXPECT_EQ(l->mtime_sec, 7);
  EXPECT_EQ(l->mtime_nsec, 8u);
  auto d = decode_directory(encode(Directory{"private", 0700, 9, 10}));
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->mode, 0700u);
  EXPECT_EQ(d->mtime_sec, 9);
  EXPECT_EQ(d->mtime_nsec, 10u);
  auto e = decode_entry(encode(Entry{"latest", EntryKind::symlink, 0777, 2, 0, "", "v3"}));
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->kind, EntryKind::symlink);
  EXPECT_EQ(e->target, "v3");
}

TEST(AgentProtocol, BadSymlinksAreErrors) {  // every frame untrusted
  for (std::string bad : {std::string(), std::string("a\0b", 3), std::string(kMaxName + 1, 'a')}) {
    EXPECT_FALSE(check_target(bad).ok()) << bad;
    EXPECT_FALSE(decode_symlink(encode(Symlink{"x", bad})).ok()) << bad;
    EXPECT_FALSE(decode_entry(encode(Entry{"x", EntryKind::symlink, 0, 0, 0, "", bad})).ok());
  }
  EXPECT_TRUE(check_target(std::string(kMaxName, 'a')).ok());
  EXPECT_TRUE(check_target("/absolute/../is fine").ok());        // verbatim: never followed
  EXPECT_FALSE(decode_symlink(encode(Symlink{"", "v3"})).ok());  // never DEST itself
  EXPECT_FALSE(decode_symlink(encode(Symlink{"../x", "v3"})).ok());
  // A target only for a symlink.
  EXPECT_FALSE(decode_entry(encode(Entry{"x", EntryKind::file, 0, 0, 0, "", "v3"})).ok());
  std::string p = encode(Symlink{"x", "v3", 1, 2});
  for (std::size_t n = 0; n < p.size(); ++n) EXPECT_FALSE(decode_symlink(p.substr(0, n)).ok());
  EXPECT_FALSE(decode_symlink(p + "x").ok());
}

TEST(AgentProtocol, FailedTextLosesControlCharacters) {
  auto f = decode_failed(encode(Failed{"a\nb", "\x1b[31mred"}));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, "a?b");
  EXPECT_EQ(f->reason, "?[31mred");
}

}  // namespace
}  // namespace pdx
