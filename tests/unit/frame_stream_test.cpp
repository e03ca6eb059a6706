#include "distribute/frame_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "archive/sha256.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

std::vector<Frame> read_all(int fd) {
  FrameDecoder d;
  std::vector<Frame> frames;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    d.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    while (auto f = d.next()) {
      if (!*f) break;
      frames.push_back(std::move(**f));
    }
  }
  return frames;
}

TEST(FrameStream, FilesOfThePlanThenDone) {
  test::TempDir dir;
  std::string big(3 * kDataChunk + 7, 'b');
  test::write_file(dir / "a", "aa");
  test::write_file(dir / "big", big);
  Layout layout;
  layout.dirs = {{"d", 0755}};
  layout.files = {{dir / "a", "a", 0644, 1, 0, 2}, {dir / "big", "d/big", 0600, 2, 0, big.size()}};
  HostPushPlan plan;
  plan.dirs = {0};
  plan.files = {1};
  auto stream = FrameStream::files(layout, plan);
  ASSERT_TRUE(stream.ok());
  auto frames = read_all((*stream)->input());
  ASSERT_EQ(frames.size(), 1 + 1 + 4 + 1 + 1u);
  EXPECT_EQ(frames[0].type, FrameType::directory);
  EXPECT_EQ(decode_file_header(frames[1].payload)->name, "d/big");
  Sha256 h;
  h.update(big.data(), big.size());
  EXPECT_EQ(decode_file_end(frames[6].payload)->sha256, h.hex_digest());
  EXPECT_EQ(frames.back().type, FrameType::done);
  EXPECT_TRUE((*stream)->errors().empty());
}

TEST(FrameStream, ShrunkFileGetsABadChecksumAndIsNamed) {
  test::TempDir dir;
  test::write_file(dir / "a", "short");
  Layout layout;
  layout.files = {{dir / "a", "a", 0644, 1, 0, 100}};
  HostPushPlan plan;
  plan.files = {0};
  auto stream = FrameStream::files(layout, plan);
  ASSERT_TRUE(stream.ok());
  auto frames = read_all((*stream)->input());
  ASSERT_GE(frames.size(), 4u);
  std::uint64_t data = 0;
  for (auto& f : frames)
    if (f.type == FrameType::data) data += f.payload.size();
  EXPECT_EQ(data, 100u);  // the size announced, so the host is not left waiting
  EXPECT_EQ(decode_file_end(frames[frames.size() - 2].payload)->sha256, std::string(64, '0'));
  auto errors = (*stream)->errors();  // noted before `done` was sent
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("changed while read"), std::string::npos) << errors[0];
}

TEST(FrameStream, ArchivePartsInOrder) {
  test::TempDir dir;
  test::write_file(dir / "p1", "hello ");
  test::write_file(dir / "p2", "world");
  auto stream = FrameStream::archive({dir / "p1", dir / "p2"});
  ASSERT_TRUE(stream.ok());
  auto frames = read_all((*stream)->input());
  ASSERT_GE(frames.size(), 3u);
  EXPECT_EQ(frames.front().type, FrameType::archive);
  std::string bytes;
  for (auto& f : frames)
    if (f.type == FrameType::data) bytes += f.payload;
  EXPECT_EQ(bytes, "hello world");
  EXPECT_EQ(frames[frames.size() - 2].type, FrameType::archive_end);
}

TEST(FrameStream, MissingPartIsAnErrorBeforeStarting) {
  EXPECT_FALSE(FrameStream::archive({"/nonexistent/part"}).ok());
}

}  // namespace
}  // namespace pdx
