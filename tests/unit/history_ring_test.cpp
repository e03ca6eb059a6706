#include "agent/history_ring.h"

#include <gtest/gtest.h>

#include <string>

namespace pdx {
namespace {

// `n` bytes of the stream "abc...zabc..." from `offset` on.
std::string stream(std::uint64_t offset, std::size_t n) {
  std::string bytes(n, '\0');
  for (std::size_t i = 0; i < n; ++i) bytes[i] = char('a' + (offset + i) % 26);
  return bytes;
}

TEST(HistoryRing, ReadsBackTheNewestBytesAcrossItsEnd) {
  HistoryRing ring(1000);
  std::uint64_t offset = 0;
  for (std::size_t n : {300u, 400u, 500u, 999u, 7u, 1000u, 250u}) {
    ring.write(offset, stream(offset, n));
    offset += n;
  }
  // The last 1000 bytes, whole and in pieces that cross the ring's end.
  EXPECT_EQ(ring.read(offset - 1000, 1000), stream(offset - 1000, 1000));
  for (std::uint64_t at = offset - 1000; at < offset; at += 97) {
    std::size_t n = std::size_t(std::min<std::uint64_t>(150, offset - at));
    EXPECT_EQ(ring.read(at, n), stream(at, n)) << at;
  }
  EXPECT_EQ(ring.kept_from(), 0u) << "no write failed";
}

TEST(HistoryRing, AnOffsetALapLaterLandsInTheSamePlace) {
  HistoryRing ring(64 * 1024 * 1024);  // a file: only the pages written take memory
  ring.write(5, "hello");
  EXPECT_EQ(ring.read(5, 5), "hello");
  EXPECT_EQ(ring.read(64 * 1024 * 1024 + 5, 5), "hello") << "the same place, a lap later";
}

}  // namespace
}  // namespace pdx
