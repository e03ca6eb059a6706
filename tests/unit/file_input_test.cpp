#include "distribute/file_input.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include "base/fd.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

// Everything `input` gives, taking at most `step` bytes of a piece at a time.
std::string drain(FileInput& input, std::size_t step) {
  std::string all;
  for (;;) {
    InputPiece piece = input.next();
    if (piece.state != InputPiece::State::data) return all;
    std::size_t n = std::min(step, piece.bytes.size());
    all.append(piece.bytes.substr(0, n));
    input.consume(n);
  }
}

TEST(FileInput, ReadersOfOneDescriptorEachReadTheWholeFile) {
  test::TempDir dir;
  std::string data;
  for (int i = 0; data.size() < 3 * FileInput::kChunk + 5; ++i) data += std::to_string(i) + ",";
  test::write_file(dir / "binary", data);
  Fd fd(::open((dir / "binary").c_str(), O_RDONLY | O_CLOEXEC));
  FileInput a(fd.get()), b(fd.get());
  std::string first_of_b = std::string(b.next().bytes.substr(0, 10));
  EXPECT_EQ(drain(a, 100000), data);
  EXPECT_EQ(first_of_b, data.substr(0, 10));
  EXPECT_EQ(drain(b, 7777), data);
  EXPECT_EQ(b.next().state, InputPiece::State::end);
}

TEST(FileInput, FinishEndsIt) {
  test::TempDir dir;
  test::write_file(dir / "f", "bytes");
  Fd fd(::open((dir / "f").c_str(), O_RDONLY | O_CLOEXEC));
  FileInput input(fd.get());
  input.finish();
  EXPECT_EQ(input.next().state, InputPiece::State::end);
}

TEST(FileInput, AReadErrorFailsIt) {
  test::TempDir dir;
  Fd fd(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  FileInput input(fd.get());
  InputPiece piece = input.next();
  EXPECT_EQ(piece.state, InputPiece::State::failed);
  EXPECT_EQ(piece.error, "read: Is a directory");
}

}  // namespace
}  // namespace pdx
