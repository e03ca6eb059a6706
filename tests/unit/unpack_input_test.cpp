#include "archive/unpack_input.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <future>

#include "archive/compressor.h"
#include "tests/unit/archive_memory_sink.h"
#include "tests/unit/scratch.h"

namespace pdx {

namespace {

std::string compressed(Codec codec, const std::string& input) {
  test::MemorySink out;
  auto sink = compressing_sink({codec, std::nullopt, 1}, out);
  EXPECT_TRUE((*sink)->write(input.data(), input.size()).ok());
  EXPECT_TRUE((*sink)->finish().ok());
  return out.bytes;
}

// Several MiB, so that the decoded blocks go round the buffers more than once.
std::string text() {
  std::string t;
  for (int i = 0; i < 600000; ++i) t += "line " + std::to_string(i) + "\n";
  return t;
}

// data cut into `n` parts DIR/p0, DIR/p1, ...; their names.
std::vector<std::string> write_parts(const test::TempDir& dir, const std::string& data, int n) {
  std::vector<std::string> names;
  std::size_t size = data.size() / n + 1;
  for (int i = 0; i < n; ++i) {
    names.push_back(dir / ("p" + std::to_string(i)));
    test::write_file(names.back(), data.substr(std::min(data.size(), i * size), size));
  }
  return names;
}

// Everything up to the end, or the Error that broke it off (after `out` got what came before).
Result<void> read_all(UnpackInput& in, std::string& out) {
  for (;;) {
    auto block = TRY(in.read());
    if (block.empty()) return {};
    out.append(block.data(), block.size());
  }
}

}  // namespace

TEST(UnpackInput, DecodesPartsInOrder) {
  for (Codec codec : {Codec::gzip, Codec::zstd}) {
    test::TempDir dir;
    auto parts = write_parts(dir, compressed(codec, text()), 3);
    UnpackInput in(parts);
    ASSERT_TRUE(in.open().ok());
    EXPECT_FALSE(in.seekable());
    std::string out;
    ASSERT_TRUE(read_all(in, out).ok());
    EXPECT_EQ(out, text());
    EXPECT_EQ(in.current_part(), parts.back());
    EXPECT_EQ(in.position(), in.total_size());
    EXPECT_TRUE(in.read().ok() && in.read()->empty());  // the end stays the end
  }
}

TEST(UnpackInput, ReadsUndecodedDataDirectlyAndSeeks) {
  test::TempDir dir;
  auto parts = write_parts(dir, "0123456789", 2);
  UnpackInput in(parts);
  ASSERT_TRUE(in.open().ok());
  ASSERT_TRUE(in.seekable());
  std::string out;
  ASSERT_TRUE(read_all(in, out).ok());
  EXPECT_EQ(out, "0123456789");
  ASSERT_EQ(*in.seek(7, SEEK_SET), 7u);
  EXPECT_EQ(in.current_part(), parts[1]);
  out.clear();
  ASSERT_TRUE(read_all(in, out).ok());
  EXPECT_EQ(out, "789");
}

// What was decoded before the stream breaks off comes first, then the Error naming the part.
TEST(UnpackInput, TruncatedStreamEndsInAnErrorNamingThePart) {
  for (Codec codec : {Codec::gzip, Codec::zstd}) {
    test::TempDir dir;
    std::string data = compressed(codec, text());
    auto parts = write_parts(dir, data.substr(0, data.size() - 1000), 2);
    UnpackInput in(parts);
    ASSERT_TRUE(in.open().ok());
    std::string out;
    auto done = read_all(in, out);
    ASSERT_FALSE(done.ok());
    EXPECT_EQ(done.error().rfind(parts[1] + ": ", 0), 0u) << done.error();
    EXPECT_EQ(out, text().substr(0, out.size()));
    EXPECT_GT(out.size(), 1u << 20);
    EXPECT_EQ(in.read().error(), done.error());
  }
}

// Decoding waits on a pipe that sends nothing: dropping the input does not wait with it.
TEST(UnpackInput, DroppedWhileAPipeIsSilent) {
  test::TempDir dir;
  std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);  // does not wait for a reader
  ASSERT_GE(writer, 0);
  std::string start = compressed(Codec::zstd, text()).substr(0, 1000);
  ASSERT_EQ(::write(writer, start.data(), start.size()), static_cast<ssize_t>(start.size()));
  auto in = std::make_unique<UnpackInput>(std::vector<std::string>{fifo});
  ASSERT_TRUE(in->open().ok());
  auto dropped = std::async(std::launch::async, [&in] { in.reset(); });
  bool returned = dropped.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  ::close(writer);  // the pipe ends; the decoding thread ends with it
  dropped.wait();
  EXPECT_TRUE(returned);
}

}  // namespace pdx
