#include "distribute/sync/delta_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "agent/delta_protocol.h"
#include "agent/patch.h"
#include "tests/unit/delta_memfd.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

std::string drain(int fd) {
  std::string out, buffer(65536, '\0');
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) return out;
    out.append(buffer.data(), static_cast<std::size_t>(n));
  }
}

// The file at `path` as a scan finds it (a missing one: `size` bytes, mtime 7).
LocalFile local_file(const std::string& path, const std::string& name, std::uint64_t size) {
  LocalFile f;
  f.path = path;
  f.name = name;
  f.mtime_sec = 7;
  f.size = size;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    f.size = static_cast<std::uint64_t>(st.st_size);
    f.mtime_sec = st.st_mtim.tv_sec;
    f.mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
  }
  return f;
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// The delta_end frames of a stream.
std::vector<DeltaEnd> ends_of(const std::string& bytes) {
  FrameDecoder decoder;
  decoder.feed(bytes);
  std::vector<DeltaEnd> ends;
  while (auto frame = decoder.next()) {
    if (!*frame) break;
    if ((*frame)->type == FrameType::delta_end)
      ends.push_back(*decode_delta_end((*frame)->payload));
  }
  return ends;
}

TEST(DeltaStreamTest, EachFilesDeltaThenDoneAndTheBytesCounted) {
  test::TempDir dir;
  std::string old_bytes(300000, 'o'), new_bytes = old_bytes;
  new_bytes[150000] = 'n';
  std::ofstream(dir / "f", std::ios::binary) << new_bytes;
  Fd old_file = test::memory_file(old_bytes);
  Signature sig = *compute_signature(old_file.get(), old_bytes.size(), 1);
  LocalFile f = local_file(dir / "f", "f", new_bytes.size());
  LocalFile gone = local_file(dir / "gone", "gone", 1);
  auto stream = DeltaStream::start({{&f, &sig}, {&gone, &sig}});
  ASSERT_TRUE(stream.ok());
  std::string bytes = drain((*stream)->input());
  FrameDecoder decoder;
  decoder.feed(bytes);
  std::string rebuilt;
  Patcher patcher(old_file.get(), sig.size, sig.block, [&](std::string_view b) -> Result<void> {
    rebuilt.append(b);
    return {};
  });
  std::vector<FrameType> types;
  std::vector<DeltaEnd> ends;
  while (auto frame = decoder.next()) {
    if (!*frame) break;
    types.push_back((*frame)->type);
    if ((*frame)->type == FrameType::delta_ops && ends.empty()) {
      ASSERT_TRUE(decode_ops((*frame)->payload, patcher).ok());
    }
    if ((*frame)->type == FrameType::delta_end)
      ends.push_back(*decode_delta_end((*frame)->payload));
  }
  ASSERT_EQ(types.back(), FrameType::done);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_TRUE(rebuilt == new_bytes);
  EXPECT_EQ(ends[0].hash, patcher.digest());
  EXPECT_EQ(ends[1].size, UINT64_MAX);  // unreadable here: matches nothing on the host
  EXPECT_LT(bytes.size(), 3 * sig.block);
}

TEST(DeltaStreamTest, ErrorsNameWhatCouldNotBeRead) {
  test::TempDir dir;
  Signature sig{0, kMinBlock, {}};
  LocalFile gone = local_file(dir / "gone", "gone", 1);
  auto stream = DeltaStream::start({{&gone, &sig}});
  drain((*stream)->input());
  auto errors = (*stream)->errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("gone: No such file"), std::string::npos);
}

TEST(DeltaStreamTest, AFileRewrittenWhileReadIsSentSoThatNoHostKeepsIt) {
  test::TempDir dir;
  constexpr std::size_t kSize = 16 << 20;  // far more than the stream reads ahead of the pipe
  std::ofstream(dir / "f", std::ios::binary) << random_bytes(kSize, 1);
  LocalFile f = local_file(dir / "f", "f", 0);
  // A write in the same clock tick as the last one may leave the ctime as it was: one tick on.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Signature none{0, kMinBlock, {}};  // all literal: the stream blocks on the pipe early
  auto stream = DeltaStream::start({{&f, &none}});
  ASSERT_TRUE(stream.ok());
  std::string head(65536, '\0');
  ssize_t n = ::read((*stream)->input(), head.data(), head.size());
  ASSERT_GT(n, 0);
  head.resize(static_cast<std::size_t>(n));  // may end inside a frame: decoded with the rest
  // Rewritten in place at the same size, its mtime put back: only the ctime tells.
  {
    Fd out(::open((dir / "f").c_str(), O_WRONLY | O_CLOEXEC));
    std::string other = random_bytes(kSize, 2);
    ASSERT_EQ(::write(out.get(), other.data(), other.size()), static_cast<ssize_t>(kSize));
    struct timespec times[2] = {{0, UTIME_OMIT}, {f.mtime_sec, static_cast<long>(f.mtime_nsec)}};
    ASSERT_EQ(::futimens(out.get(), times), 0);
  }
  auto ends = ends_of(head + drain((*stream)->input()));
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].size, UINT64_MAX);
  // Not an error yet: the file goes again whole, read as it is then (sync's one retry).
  EXPECT_TRUE((*stream)->errors().empty());
}

TEST(DeltaStreamTest, AFileChangedSinceItWasScannedIsNotSent) {
  test::TempDir dir;
  std::ofstream(dir / "f", std::ios::binary) << "new";
  LocalFile f = local_file(dir / "f", "f", 0);
  f.mtime_sec -= 10;  // scanned before its last write
  Signature none{0, kMinBlock, {}};
  auto stream = DeltaStream::start({{&f, &none}});
  auto ends = ends_of(drain((*stream)->input()));
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].size, UINT64_MAX);
  EXPECT_TRUE((*stream)->errors().empty());  // sent whole, read again, at the second meeting
}

}  // namespace
}  // namespace pdx
