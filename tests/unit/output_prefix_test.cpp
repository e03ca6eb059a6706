#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <thread>

#include "core/output.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::TempFile;

TEST(PrefixSink, PrefixesWholeLinesAndFlushesTheLastUnfinishedOne) {
  TempFile out, err;
  auto sink = make_prefix_sink({"a", "b"}, Prefix::yes, Colour::no, {out.fd(), err.fd()});
  sink->output(0, Stream::out, "one\ntw");
  sink->output(1, Stream::err, "oops");
  sink->output(0, Stream::out, "o\nthree");
  sink->finished(0, {});
  sink->finished(1, {});
  sink->close();
  EXPECT_EQ(out.read(), "a: one\na: two\na: three\n");
  EXPECT_EQ(err.read(), "b: oops\n");
}

TEST(PrefixSink, NoPrefixKeepsBytes) {
  TempFile out, err;
  auto sink = make_prefix_sink({"a"}, Prefix::no, Colour::no, {out.fd(), err.fd()});
  sink->output(0, Stream::out, "x\n\ny");
  sink->finished(0, {});
  EXPECT_EQ(out.read(), "x\n\ny\n");
}

TEST(PrefixSink, ColourOnlyWrapsThePrefix) {
  TempFile out, err;
  auto sink = make_prefix_sink({"a"}, Prefix::yes, Colour::yes, {out.fd(), err.fd()});
  sink->output(0, Stream::out, "x\n");
  EXPECT_EQ(out.read(), "\033[36ma:\033[0m x\n");
}

// Hosts writing partial lines at the same time never mix inside a line.
TEST(PrefixSink, ConcurrentPartialLinesNeverInterleave) {
  TempFile out, err;
  constexpr int kHosts = 8, kLines = 2000;
  std::vector<std::string> labels;
  for (int h = 0; h < kHosts; ++h) labels.push_back("h" + std::to_string(h));
  auto sink = make_prefix_sink(labels, Prefix::yes, Colour::no, {out.fd(), err.fd()});
  std::vector<std::thread> threads;
  for (int h = 0; h < kHosts; ++h) {
    threads.emplace_back([&, h] {
      std::string line = "line-from-" + std::to_string(h) + "-" + std::string(50, 'x') + "\n";
      for (int i = 0; i < kLines; ++i) {  // split every line in three writes
        sink->output(h, Stream::out, line.substr(0, 5));
        sink->output(h, Stream::out, line.substr(5, 20));
        sink->output(h, Stream::out, line.substr(25));
      }
      sink->finished(h, {});
    });
  }
  for (auto& t : threads) t.join();
  std::istringstream in(out.read());
  std::string line;
  int count = 0;
  while (std::getline(in, line)) {
    auto colon = line.find(": ");
    ASSERT_NE(colon, std::string::npos);
    std::string host = line.substr(1, colon - 1);
    EXPECT_EQ(line.substr(colon + 2), "line-from-" + host + "-" + std::string(50, 'x'));
    ++count;
  }
  EXPECT_EQ(count, kHosts * kLines);
}

TEST(PrefixSink, VeryLongLineIsCutAtTheCapNotHeldForever) {
  TempFile out, err;
  auto sink = make_prefix_sink({"a"}, Prefix::yes, Colour::no, {out.fd(), err.fd()});
  std::string chunk(1 << 20, 'z');
  for (int i = 0; i < 5; ++i) sink->output(0, Stream::out, chunk);
  // The first 4 MiB have been written out already, before the line ended.
  EXPECT_EQ(out.read(), "a: " + std::string(4 << 20, 'z') + "\n");
  sink->output(0, Stream::out, "\n");
  sink->finished(0, {});
  EXPECT_EQ(out.read().size(), (5u << 20) + 2 * 4);  // two "a: " + "\n" pieces
}

std::vector<std::size_t> line_lengths(const std::string& text) {
  std::vector<std::size_t> lengths;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t nl = text.find('\n', start);
    lengths.push_back(nl - start);
    start = nl + 1;
  }
  return lengths;
}

// Cut exactly at 4 MiB however the bytes arrive: in pipe-sized reads, or in one piece.
TEST(PrefixSink, LongLineIsCutIntoPiecesOfExactly4MiB) {
  std::string line(10 << 20, 'z');
  for (std::size_t chunk : {std::size_t{65536}, std::size_t{1000003}, line.size()}) {
    test::TempFile out, err;
    auto sink = make_prefix_sink({"a"}, Prefix::no, Colour::no, {out.fd(), err.fd()});
    for (std::size_t at = 0; at < line.size(); at += chunk)
      sink->output(0, Stream::out, std::string_view(line).substr(at, chunk));
    sink->finished(0, {});
    EXPECT_EQ(line_lengths(out.read()), (std::vector<std::size_t>{4194304, 4194304, 2097152}))
        << "chunk " << chunk;
  }
}

// A line of exactly 4 MiB is one line (no empty one after it); one byte more is cut.
TEST(PrefixSink, LineOfExactlyTheCapIsOneLine) {
  for (std::size_t extra : {0, 1}) {
    test::TempFile out, err;
    auto sink = make_prefix_sink({"a"}, Prefix::no, Colour::no, {out.fd(), err.fd()});
    sink->output(0, Stream::out, std::string((4 << 20) - 10, 'z'));
    sink->output(0, Stream::out, std::string(10 + extra, 'y') + "\nnext\n");
    sink->finished(0, {});
    std::vector<std::size_t> expected{4194304};
    if (extra) expected.push_back(1);
    expected.push_back(4);
    EXPECT_EQ(line_lengths(out.read()), expected);
  }
}

}  // namespace
}  // namespace pdx
