#include "distribute/push/frame_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "hash/xxh3.h"
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

// The frames of a one-file plan for `f`, and the errors noted.
std::pair<std::vector<Frame>, std::vector<std::string>> send_one(const LocalFile& f,
                                                                 int rereads = 0) {
  Layout layout;
  layout.files = {f};
  HostPushPlan plan;
  plan.files = {0};
  auto stream = FrameStream::files(layout, plan, rereads);
  if (!stream.ok()) return {};
  auto frames = read_all((*stream)->input());
  return {frames, (*stream)->errors()};  // noted before `done` was sent
}

LocalFile scanned(const std::string& path, const std::string& name) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return {path,
          name,
          0644,
          st.st_mtim.tv_sec,
          static_cast<std::uint32_t>(st.st_mtim.tv_nsec),
          static_cast<std::uint64_t>(st.st_size)};
}

void expect_abandoned(const std::vector<Frame>& frames, const std::vector<std::string>& errors,
                      const std::string& error) {
  ASSERT_GE(frames.size(), 3u);
  EXPECT_EQ(frames[frames.size() - 2].type, FrameType::file_end);
  EXPECT_EQ(decode_file_end(frames[frames.size() - 2].payload)->xxh3_128, kAbandoned);
  EXPECT_EQ(errors, std::vector<std::string>{error});
}

TEST(FrameStream, FilesOfThePlanThenDone) {
  test::TempDir dir;
  std::string big(3 * kDataChunk + 7, 'b');
  test::write_file(dir / "a", "aa");
  test::write_file(dir / "big", big);
  Layout layout;
  layout.dirs = {{"d", 0755}};
  layout.files = {scanned(dir / "a", "a"), scanned(dir / "big", "d/big")};
  HostPushPlan plan;
  plan.dirs = {0};
  plan.files = {1};
  auto stream = FrameStream::files(layout, plan);
  ASSERT_TRUE(stream.ok());
  auto frames = read_all((*stream)->input());
  ASSERT_EQ(frames.size(), 1 + 1 + 4 + 1 + 1u);
  EXPECT_EQ(frames[0].type, FrameType::directory);
  EXPECT_EQ(decode_file_header(frames[1].payload)->name, "d/big");
  EXPECT_EQ(decode_file_end(frames[6].payload)->xxh3_128, hex(strong_hash(big.data(), big.size())));
  EXPECT_EQ(frames.back().type, FrameType::done);
  EXPECT_TRUE((*stream)->errors().empty());
}

TEST(FrameStream, HolesGoAsHoleFramesAndCountInTheHash) {
  test::TempDir dir;
  std::string path = dir / "sparse";
  {
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
    ASSERT_TRUE(fd);
    ASSERT_EQ(::pwrite(fd.get(), "head", 4, 0), 4);
    ASSERT_EQ(::pwrite(fd.get(), "tail", 4, 64 << 20), 4);  // 64 MiB on: a hole between
    ASSERT_EQ(::ftruncate(fd.get(), (128 << 20) + 4), 0);   // and one at the end
  }
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  if (st.st_blocks * 512 >= st.st_size) GTEST_SKIP() << "no holes on this filesystem";
  auto [frames, errors] = send_one(scanned(path, "sparse"));
  EXPECT_TRUE(errors.empty());
  std::uint64_t data = 0, holes = 0;
  StreamHash hash;
  for (const auto& f : frames) {
    if (f.type == FrameType::data) {
      data += f.payload.size();
      hash.update(f.payload.data(), f.payload.size());
    } else if (f.type == FrameType::hole) {
      auto h = decode_hole(f.payload);
      ASSERT_TRUE(h.ok());
      holes += h->length;
      hash_zeros(hash, h->length);
    }
  }
  EXPECT_EQ(data + holes, static_cast<std::uint64_t>(st.st_size));
  EXPECT_LE(data, 2u << 20);  // a block or so of each end, not the 128 MiB
  ASSERT_GE(frames.size(), 2u);
  EXPECT_EQ(decode_file_end(frames[frames.size() - 2].payload)->xxh3_128, hex(hash.digest()));
  std::string all = test::read_file(path);
  EXPECT_EQ(hex(strong_hash(all.data(), all.size())), hex(hash.digest()));
}

TEST(FrameStream, ShrunkFileIsAbandonedAndNamed) {
  test::TempDir dir;
  test::write_file(dir / "a", std::string(3 * kDataChunk, 'a'));
  LocalFile f = scanned(dir / "a", "a");
  ASSERT_EQ(::truncate((dir / "a").c_str(), 5), 0);
  auto [frames, errors] = send_one(f);
  expect_abandoned(frames, errors, (dir / "a") + ": changed while being sent");
  for (auto& frame : frames) EXPECT_NE(frame.type, FrameType::data);  // no padding
}

TEST(FrameStream, FileTouchedSinceTheScanIsAbandoned) {
  test::TempDir dir;
  test::write_file(dir / "a", "same size");
  LocalFile f = scanned(dir / "a", "a");
  f.mtime_nsec = (f.mtime_nsec + 1) % 1000000000;
  auto [frames, errors] = send_one(f);
  expect_abandoned(frames, errors, (dir / "a") + ": changed while being sent");
}

TEST(FrameStream, FileRewrittenInPlaceWhileReadIsAbandonedThoughItsMtimeIsPutBack) {
  test::TempDir dir;
  const std::string path = dir / "a";
  test::write_file(path, std::string(16 * kDataChunk, 'a'));
  LocalFile f = scanned(path, "a");
  Layout layout;
  layout.files = {f};
  HostPushPlan plan;
  plan.files = {0};
  auto stream = FrameStream::files(layout, plan);
  ASSERT_TRUE(stream.ok());
  // Read until a data frame came: the file is open and being read; the pipe then holds the
  // stream up while the file is rewritten at the same size, its mtime put back.
  int fd = (*stream)->input();
  FrameDecoder d;
  std::vector<Frame> frames;
  char buf[4096];
  bool rewritten = false;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    d.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    while (auto frame = d.next()) {
      if (!*frame) break;
      frames.push_back(std::move(**frame));
    }
    if (!rewritten && !frames.empty() && frames.back().type == FrameType::data) {
      std::ofstream(path, std::ios::binary | std::ios::in) << std::string(16 * kDataChunk, 'b');
      struct timespec times[2] = {{0, UTIME_OMIT}, {f.mtime_sec, long(f.mtime_nsec)}};
      ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
      rewritten = true;
    }
  }
  ASSERT_TRUE(rewritten);
  expect_abandoned(frames, (*stream)->errors(), path + ": changed while being sent");
}

TEST(FrameStream, ChangedFileIsSentAgainAsItIsNowWhenAsked) {
  test::TempDir dir;
  test::write_file(dir / "a", "old");
  LocalFile f = scanned(dir / "a", "a");
  test::write_file(dir / "a", "new and longer");
  auto [frames, errors] = send_one(f, 1);
  EXPECT_TRUE(errors.empty());
  // The first try abandoned, then the file again: header, data, end, done.
  ASSERT_EQ(frames.size(), 2 + 3 + 1u);
  EXPECT_EQ(decode_file_end(frames[1].payload)->xxh3_128, kAbandoned);
  auto header = decode_file_header(frames[2].payload);
  EXPECT_EQ(header->name, "a");
  EXPECT_EQ(header->size, 14u);
  EXPECT_EQ(frames[3].payload, "new and longer");
  EXPECT_EQ(decode_file_end(frames[4].payload)->xxh3_128, hex(strong_hash("new and longer", 14)));
}

TEST(FrameStream, ChangedIntoAnotherKindIsNotReadAgain) {
  test::TempDir dir;
  test::write_file(dir / "a", "now");
  LocalFile f = scanned(dir / "a", "a");
  ASSERT_EQ(::unlink((dir / "a").c_str()), 0);
  ASSERT_EQ(::mkdir((dir / "a").c_str(), 0755), 0);  // opens, but not as scanned
  auto [frames, errors] = send_one(f, 2);
  expect_abandoned(frames, errors, (dir / "a") + ": changed while being sent");
  EXPECT_EQ(frames.size(), 2 + 1u);  // one try
}

TEST(FrameStream, UnreadableFileIsAbandonedAndNamed) {
  test::TempDir dir;
  LocalFile f{dir / "gone", "gone", 0644, 0, 0, 10};
  auto [frames, errors] = send_one(f);
  expect_abandoned(frames, errors, (dir / "gone") + ": No such file or directory");
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

// /proc/self/mem: a regular file of size 0 whose read fails (EIO), as a failing disk's.
TEST(FrameStream, ArchivePartThatFailsHasNoArchiveEnd) {
  test::TempDir dir;
  test::write_file(dir / "p1", "hello ");
  auto stream = FrameStream::archive({dir / "p1", "/proc/self/mem"});
  ASSERT_TRUE(stream.ok());
  auto frames = read_all((*stream)->input());
  ASSERT_GE(frames.size(), 2u);
  EXPECT_EQ(frames.front().type, FrameType::archive);
  EXPECT_EQ(frames.back().type, FrameType::done);
  for (auto& f : frames) EXPECT_NE(f.type, FrameType::archive_end);
  ASSERT_EQ((*stream)->errors().size(), 1u);
  EXPECT_EQ((*stream)->errors()[0], "/proc/self/mem: read failed: Input/output error");
}

TEST(FrameStream, MissingPartIsAnErrorBeforeStarting) {
  EXPECT_FALSE(FrameStream::archive({"/nonexistent/part"}).ok());
}

}  // namespace
}  // namespace pdx
