#include "distribute/delta_stream.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>

#include "distribute/delta_protocol.h"
#include "distribute/patch.h"
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

LocalFile local_file(const std::string& path, const std::string& name, std::uint64_t size) {
  LocalFile f;
  f.path = path;
  f.name = name;
  f.mtime_sec = 7;
  f.size = size;
  return f;
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

}  // namespace
}  // namespace pdx
