#include "agent/record_input.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace pdx {
namespace {

// A link's records as a RecordInput's Next: each copied into the buffer it is handed, as
// RelayLink::receive opens a record there; then the end, or `broken` (the link breaking).
struct Records {
  std::vector<std::string> records;
  std::optional<std::string> broken{};
  std::size_t taken = 0;
  std::vector<const std::string*> buffers{};  // the buffer each call was handed

  RecordInput::Next next() {
    return [this](std::string& buffer) -> Result<std::string_view> {
      buffers.push_back(&buffer);
      if (taken == records.size()) {
        if (broken) return Error{*broken};
        return std::string_view();
      }
      const std::string& record = records[taken++];
      if (buffer.size() < record.size()) buffer.resize(record.size());
      buffer.replace(0, record.size(), record);
      return std::string_view(buffer.data(), record.size());
    };
  }
};

// `bytes` cut into records of the sizes in `sizes`, taken in turn.
std::vector<std::string> cut(std::string_view bytes, const std::vector<std::size_t>& sizes) {
  std::vector<std::string> out;
  for (std::size_t at = 0, i = 0; at < bytes.size(); ++i) {
    std::size_t n = std::min(sizes[i % sizes.size()], bytes.size() - at);
    out.emplace_back(bytes.substr(at, n));
    at += n;
  }
  return out;
}

// Every frame a FrameReader reads from `input`, and how it ended.
std::pair<std::vector<Frame>, Result<void>> read_all(FrameInput& input) {
  FrameReader reader(input);
  std::vector<Frame> frames;
  for (;;) {
    auto f = reader.next();
    if (!f) return {frames, Error{f.error(), f.error_kind()}};
    if (!*f) return {frames, {}};
    frames.push_back(Frame{(*f)->type, std::string((*f)->payload)});
  }
}

std::string stream_of(const std::vector<std::string>& payloads) {
  std::string bytes;
  for (const auto& p : payloads) bytes += encode_frame(FrameType::data, p);
  return bytes + encode_frame(FrameType::done, "");
}

const std::vector<std::string> kPayloads = {
    "a", std::string(kDataChunk, 'b'), "", std::string(70001, 'c'), std::string(kMaxPayload, 'd'),
    "e"};

TEST(RecordInput, FramesCutAcrossRecordsOrSharingOneComeWhole) {
  std::string bytes = stream_of(kPayloads);
  // Records of one byte, of a few frames' headers, and of 1 MiB (a relay link's), not on any
  // frame's edge.
  for (const auto& sizes : std::vector<std::vector<std::size_t>>{
           {1}, {3, 7, 11}, {1024 * 1024}, {2 * 1024 * 1024 + 5, 1}, {bytes.size()}}) {
    Records records{cut(bytes, sizes)};
    RecordInput input(records.next());
    auto [frames, end] = read_all(input);
    ASSERT_TRUE(end.ok()) << end.error();
    ASSERT_EQ(frames.size(), kPayloads.size() + 1) << sizes[0];
    for (std::size_t i = 0; i < kPayloads.size(); ++i)
      EXPECT_TRUE(frames[i].payload == kPayloads[i]) << i;
    EXPECT_EQ(frames.back().type, FrameType::done);
  }
}

TEST(RecordInput, EveryRecordIsTakenIntoTheOneBuffer) {
  Records records{cut(stream_of(kPayloads), {1024 * 1024})};
  RecordInput input(records.next());
  ASSERT_TRUE(read_all(input).second.ok());
  ASSERT_GT(records.buffers.size(), 2u);
  for (const std::string* buffer : records.buffers) EXPECT_EQ(buffer, records.buffers.front());
}

TEST(RecordInput, ALinkBrokenInsideAFrameIsItsErrorNotAShorterStream) {
  std::string bytes = stream_of(kPayloads);
  std::size_t inside = 5 + 1 + 5 + kDataChunk / 2;  // in the middle of the second frame
  Records records{cut(bytes.substr(0, inside), {1024 * 1024}), "the relay link closed"};
  RecordInput input(records.next());
  auto [frames, end] = read_all(input);
  EXPECT_EQ(frames.size(), 1u);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error(), "the relay link closed");
  char byte;
  auto again = input.read(&byte, 1);  // and so on for every read after
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), "the relay link closed");
  EXPECT_FALSE(input.drain().ok());
}

TEST(RecordInput, ALinkBrokenBetweenFramesIsAnErrorToo) {
  std::string frame = encode_frame(FrameType::data, "whole");
  Records records{{frame}, "a relay chunk failed its check"};
  RecordInput input(records.next());
  auto [frames, end] = read_all(input);
  EXPECT_EQ(frames.size(), 1u);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error(), "a relay chunk failed its check");
}

TEST(RecordInput, DrainTakesWhatTheConsumerLeftToTheEnd) {
  std::string bytes = stream_of(kPayloads);
  Records records{cut(bytes, {1024 * 1024})};
  RecordInput input(records.next());
  FrameReader reader(input);
  ASSERT_TRUE(reader.next().ok());  // a consumer that stops after its first frame
  EXPECT_TRUE(input.drain().ok());
  EXPECT_EQ(records.taken, records.records.size());
  char byte;
  EXPECT_EQ(input.read(&byte, 1).value(), 0u);

  Records broken{cut(bytes, {1024 * 1024}), "the relay link closed"};
  broken.records.pop_back();
  RecordInput cut_short(broken.next());
  auto drained = cut_short.drain();
  ASSERT_FALSE(drained.ok());
  EXPECT_EQ(drained.error(), "the relay link closed");
}

}  // namespace
}  // namespace pdx
