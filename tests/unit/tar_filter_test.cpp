#include "archive/tar_filter.h"

#include <gtest/gtest.h>
#include <cstdio>

#include <algorithm>
#include <cstring>

namespace pdx {

namespace {

// The stream in pieces of `chunk` bytes; seeks as lseek on it.
class MemorySource : public TarSource {
 public:
  MemorySource(std::string data, std::size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  Result<std::span<const char>> read() override {
    auto n = std::min(chunk_, data_.size() - at_);
    std::span<const char> piece(data_.data() + at_, n);
    at_ += n;
    return piece;
  }
  Result<std::uint64_t> seek(std::int64_t offset, int whence) override {
    at_ = static_cast<std::size_t>(offset + static_cast<std::int64_t>(whence == SEEK_CUR ? at_
                                                                      : whence == SEEK_END
                                                                          ? data_.size()
                                                                          : 0));
    return at_;
  }
  const std::string& current_part() const override { return name_; }

 private:
  std::string data_;
  std::size_t chunk_;
  std::size_t at_ = 0;
  std::string name_ = "t.tar";
};

// A 512-byte header: name, type, size (octal), ustar or GNU magic, a right checksum.
std::string header(const std::string& name, char type, std::uint64_t size, bool gnu = false) {
  std::string h(512, '\0');
  name.copy(h.data(), std::min<std::size_t>(name.size(), 100));
  snprintf(h.data() + 100, 8, "%07o", 0644);
  snprintf(h.data() + 124, 12, "%011llo", static_cast<unsigned long long>(size));
  h[156] = type;
  std::memcpy(h.data() + 257,
              gnu ? "ustar  \0"
                  : "ustar\0"
                    "00",
              8);
  return h;
}

std::string sealed(std::string h) {
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  snprintf(h.data() + 148, 8, "%06o", sum);
  h[155] = ' ';
  return h;
}

std::string padded(std::string data) {
  data.resize((data.size() + 511) / 512 * 512, '\0');
  return data;
}

std::string record(const std::string& keyword, const std::string& value) {
  std::string rest = " " + keyword + "=" + value + "\n";
  std::size_t length = rest.size() + 1;
  while (std::to_string(length).size() + rest.size() != length) ++length;
  return std::to_string(length) + rest;
}

// A pax header and its body.
std::string pax(const std::string& body, char type = 'x') {
  return sealed(header("PaxHeaders/f", type, body.size())) + padded(body);
}

std::string file(const std::string& name, const std::string& data) {
  return sealed(header(name, '0', data.size())) + padded(data);
}

const std::string kEnd(1024, '\0');

// All the filter gives, or its error.
Result<std::string> filtered(const std::string& input, std::size_t chunk) {
  MemorySource source(input, chunk);
  TarFilter filter(source);
  std::string out;
  for (;;) {
    auto piece = TRY(filter.read());
    if (piece.empty()) return out;
    out.append(piece.data(), piece.size());
  }
}

const std::size_t kChunks[] = {1, 7, 512, 1000, 4096, 1 << 20};

void expect_unchanged(const std::string& input) {
  for (auto chunk : kChunks) {
    auto out = filtered(input, chunk);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_TRUE(*out == input) << "chunk " << chunk;
  }
}

void expect_filtered(const std::string& input, const std::string& expected) {
  for (auto chunk : kChunks) {
    auto out = filtered(input, chunk);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(out->size(), expected.size()) << "chunk " << chunk;
    EXPECT_TRUE(*out == expected) << "chunk " << chunk;
  }
}

void expect_error(const std::string& input, const std::string& message) {
  for (auto chunk : kChunks) {
    auto out = filtered(input, chunk);
    ASSERT_FALSE(out.ok()) << "chunk " << chunk;
    EXPECT_NE(out.error().find(message), std::string::npos) << out.error();
    EXPECT_EQ(out.error_kind(), ErrorKind::bad_input);
  }
}

const std::string kBig(2 << 20, 'v');  // over libarchive's 1 MiB

}  // namespace

TEST(TarFilter, OrdinaryArchivesPassUnchanged) {
  expect_unchanged(file("a", "hello") + file("b", std::string(3000, 'b')) +
                   pax(record("path", "long/name") + record("size", "5")) +
                   sealed(header("x", '0', 0)) + "12345" + std::string(507, '\0') +
                   sealed(header("d/", '5', 0)) + kEnd);
}

TEST(TarFilter, OtherFormatsAndGarbagePassUnchanged) {
  expect_unchanged("PK\3\4" + std::string(5000, 'z'));
  expect_unchanged("");
  expect_unchanged(std::string(100, 'a'));
}

TEST(TarFilter, ShrinksAnOversizePaxHeaderToTheRecordsPdxUses) {
  std::string kept = record("path", "dir/file") + record("mtime", "1234567890.5");
  std::string body = record("SCHILY.xattr.user.big", kBig) + record("path", "dir/file") +
                     record("comment", kBig) + record("mtime", "1234567890.5") +
                     record("LIBARCHIVE.xattr.user.b", kBig) + record("unknown.key", "z");
  std::string after = file("f", "data") + kEnd;
  std::string expected = pax(kept) + after;
  expect_filtered(pax(body) + after, expected);
  // A global header the same way, and one after an entry.
  expect_filtered(file("a", "1") + pax(body, 'g') + after, file("a", "1") + pax(kept, 'g') + after);
}

TEST(TarFilter, FollowsThePaxSizeOfAnEntry) {
  // The ustar size field says 0; the pax size 600 bytes: the data of the entry, whose bytes
  // look like an oversize pax header that must not be touched.
  std::string inner = pax(record("comment", kBig));
  std::string input = pax(record("size", std::to_string(inner.size()))) +
                      sealed(header("big", '0', 0)) + inner + pax(record("comment", kBig)) +
                      file("f", "x") + kEnd;
  std::string expected = pax(record("size", std::to_string(inner.size()))) +
                         sealed(header("big", '0', 0)) + inner + pax("") + file("f", "x") + kEnd;
  expect_filtered(input, expected);
}

TEST(TarFilter, ThePaxSizeKeptInAShrunkHeaderCounts) {
  std::string inner = pax(record("comment", kBig));
  std::string input = pax(record("comment", kBig) + record("size", std::to_string(inner.size()))) +
                      sealed(header("big", '0', 0)) + inner + kEnd;
  std::string expected = pax(record("size", std::to_string(inner.size()))) +
                         sealed(header("big", '0', 0)) + inner + kEnd;
  expect_filtered(input, expected);
}

TEST(TarFilter, WalksGnuSparseExtensionHeadersAndLongNames) {
  std::string sparse = header("s", 'S', 1024, true);
  snprintf(sparse.data() + 386, 12, "%011o", 0);         // first region's offset
  snprintf(sparse.data() + 386 + 12, 12, "%011o", 512);  // and size
  sparse[482] = 1;                                       // an extension header follows
  std::string extension(512, '\0');
  snprintf(extension.data(), 12, "%011o", 4096);
  snprintf(extension.data() + 12, 12, "%011o", 512);
  extension[504] = 1;  // and another
  std::string last(512, '\0');
  std::string longname =
      sealed(header("././@LongLink", 'L', 300, true)) + padded(std::string(300, 'n'));
  std::string head = longname + sealed(sparse) + extension + last + std::string(1024, 's');
  expect_filtered(head + pax(record("comment", kBig)) + file("f", "x") + kEnd,
                  head + pax("") + file("f", "x") + kEnd);
}

TEST(TarFilter, AHeaderStillOverAMebibyteIsAnError) {
  expect_error(pax(record("path", std::string(1100000, 'p'))) + file("f", "") + kEnd,
               "t.tar: the pax header at byte 0 holds more than 1 MiB of records pdx needs");
}

TEST(TarFilter, MalformedRecordsInAnOversizeHeaderAreErrors) {
  std::string good = record("comment", kBig);
  expect_error(pax("99999999 path=x\n" + good) + kEnd, "is malformed (a record length");
  expect_error(pax("x2 path=x\n" + good) + kEnd, "is malformed (a record that does not start");
  expect_error(pax(good + "11 path=x\n"), "is malformed (a record length");
  expect_error(pax(good + "5 =x\n"), "is malformed (a record without a keyword");
  expect_error(pax(good + "5 abc="), "is malformed");
  std::string no_newline = good;
  no_newline.back() = 'x';
  expect_error(pax(no_newline) + kEnd, "does not end with a newline");
}

TEST(TarFilter, AnOversizeHeaderCutShortIsAnError) {
  std::string whole = pax(record("comment", kBig));
  expect_error(whole.substr(0, 512 + 100000), "the archive ends early in the pax header at byte 0");
  expect_error(file("a", "1") + whole.substr(0, whole.size() - 1),
               "the archive ends early in the pax header at byte 1024");
}

TEST(TarFilter, HeadersThatLieOrAreCutShortPassUnchanged) {
  std::string big = pax(record("comment", kBig));
  // A size field read as libarchive reads it: octal up to the first other character (here
  // none: 0 bytes, and the next block a header); one that says more than there is, or is
  // negative (base-256), is libarchive's to refuse: the walk stops looking.
  std::string not_octal = header("a", '0', 0);
  std::memcpy(not_octal.data() + 124, "zzzzzzzzzzz", 11);
  expect_filtered(sealed(not_octal) + big + kEnd, sealed(not_octal) + pax("") + kEnd);
  expect_unchanged(sealed(header("a", '0', 1ull << 40)) + big);
  std::string negative = header("a", '0', 0);
  std::memset(negative.data() + 124, 0xff, 12);
  expect_unchanged(sealed(negative) + big);
  // A bad checksum, a header cut short, a record length that lies in an ordinary pax header.
  std::string damaged = sealed(header("a", '0', 0));
  damaged[0] = 'b';
  expect_unchanged(damaged + big);
  expect_unchanged(file("a", "1") + sealed(header("b", '0', 0)).substr(0, 300));
  expect_unchanged(pax("999 size=1\n") + file("a", "1") + kEnd);
  expect_unchanged(sealed(header("a", '0', 0)).substr(0, 511));
}

TEST(TarFilter, SeeksForwardOverEntryData) {
  std::string data(100352, 'd');  // a whole number of blocks: libarchive skips the padding too
  std::string input = file("a", data) + pax(record("comment", kBig)) + file("f", "x") + kEnd;
  MemorySource source(input, 4096);
  TarFilter filter(source);
  auto first = filter.read();
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 4096u);
  auto at = filter.seek(static_cast<std::int64_t>(512 + data.size() - 4096), SEEK_CUR);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(*at, 512 + data.size());
  std::string rest;
  for (;;) {
    auto piece = filter.read();
    ASSERT_TRUE(piece.ok());
    if (piece->empty()) break;
    rest.append(piece->data(), piece->size());
  }
  EXPECT_TRUE(rest == pax("") + file("f", "x") + kEnd);
  EXPECT_FALSE(filter.seek(0, SEEK_SET).ok());  // the offsets no longer match the source's
}

TEST(TarFilter, SeeksAnywhereWhileNothingWasRewritten) {
  MemorySource source("PK" + std::string(10000, 'z'), 1000);
  TarFilter filter(source);
  ASSERT_TRUE(filter.read().ok());
  auto at = filter.seek(-10, SEEK_END);
  ASSERT_TRUE(at.ok());
  auto piece = filter.read();
  ASSERT_TRUE(piece.ok());
  EXPECT_EQ(std::string(piece->data(), piece->size()), std::string(10, 'z'));
}

TEST(TarFilter, WalksAfreshAfterASeekBackToTheStart) {
  std::string input = file("a", std::string(5000, 'a')) + pax(record("comment", kBig)) + kEnd;
  MemorySource source(input, 1000);
  TarFilter filter(source);
  ASSERT_TRUE(filter.read().ok());
  ASSERT_TRUE(filter.seek(-22, SEEK_END).ok());
  ASSERT_TRUE(filter.read().ok());
  ASSERT_TRUE(filter.seek(0, SEEK_SET).ok());
  std::string out;
  for (;;) {
    auto piece = filter.read();
    ASSERT_TRUE(piece.ok());
    if (piece->empty()) break;
    out.append(piece->data(), piece->size());
  }
  EXPECT_TRUE(out == file("a", std::string(5000, 'a')) + pax("") + kEnd);
}

TEST(TarFilter, SurvivesRandomDamage) {
  std::string sparse = header("s", 'S', 512, true);
  snprintf(sparse.data() + 386, 12, "%011o", 0);
  sparse[482] = 1;
  std::string input = pax(record("size", "600") + record("path", "p")) +
                      sealed(header("a", '0', 0)) + std::string(1024, 'a') + sealed(sparse) +
                      std::string(512, '\0') + std::string(512, 's') +
                      pax(record("comment", std::string(1100000, 'c')) + record("path", "q")) +
                      file("f", "x") + kEnd;
  std::uint32_t seed = 1;
  auto next = [&seed] { return seed = seed * 1103515245 + 12345; };
  for (int round = 0; round < 200; ++round) {
    std::string damaged = input;
    for (int i = 0; i < 8; ++i) {
      // Mostly in the headers and the start of the big pax body, where the walk reads.
      std::size_t at = next() % 4 == 0 ? next() % damaged.size() : next() % 5000;
      damaged[at] = static_cast<char>(next() >> 16);
    }
    if (round % 3 == 0) damaged.resize(next() % damaged.size());
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{333}}) {
      auto out = filtered(damaged, chunk);  // an answer, or an error: no crash, no overread
      if (!out.ok()) {
        EXPECT_EQ(out.error_kind(), ErrorKind::bad_input) << out.error();
      }
    }
  }
}

TEST(PaxRecords, SplitsRecordsFedByteByByte) {
  std::string body = record("size", "42") + record("comment", "drop me") + record("path", "p");
  PaxRecords records(
      body.size(), [](std::string_view k) { return k != "comment"; }, 999999, 1 << 20);
  for (char c : body) records.feed({&c, 1});
  EXPECT_FALSE(records.problem());
  EXPECT_EQ(records.held(), record("size", "42") + record("path", "p"));
  EXPECT_EQ(records.size(), 42);
}

TEST(PaxRecords, StopsAtARecordOverItsLimitAsLibarchiveDoes) {
  std::string body = record("comment", std::string(100, 'c')) + record("size", "7");
  PaxRecords records(
      body.size(), [](std::string_view k) { return k == "size"; }, 50, 1 << 20);
  records.feed(body);
  EXPECT_TRUE(records.problem());
  EXPECT_FALSE(records.size());
}

}  // namespace pdx
