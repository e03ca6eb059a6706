#include "agent/delta.h"

#include <gtest/gtest.h>

#include <random>

#include "agent/patch.h"
#include "tests/unit/delta_memfd.h"

namespace pdx {
namespace {

using test::memory_file;

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Ops recorded, and the new file rebuilt from them and the old one through a Patcher.
struct Rebuilt {
  std::string bytes;
  DeltaResult result;
  std::uint64_t copies = 0;  // copy ops
};

class Recorder final : public DeltaSink {
 public:
  Recorder(Patcher& patcher, Rebuilt& out) : patcher_(patcher), out_(out) {}
  Result<void> copy(std::uint64_t first, std::uint64_t count) override {
    ++out_.copies;
    return patcher_.copy(first, count);
  }
  Result<void> literal(std::string_view bytes) override {
    EXPECT_LE(bytes.size(), kMaxLiteral);
    EXPECT_FALSE(bytes.empty());
    return patcher_.literal(bytes);
  }

 private:
  Patcher& patcher_;
  Rebuilt& out_;
};

Rebuilt sync_bytes(const std::string& old_bytes, const std::string& new_bytes) {
  Fd old_file = memory_file(old_bytes);
  auto sig = compute_signature(old_file.get(), old_bytes.size(), 4);
  EXPECT_TRUE(sig.ok());
  Rebuilt out;
  Patcher patcher(old_file.get(), sig->size, sig->block, [&](std::string_view b) -> Result<void> {
    out.bytes.append(b);
    return {};
  });
  Recorder recorder(patcher, out);
  Fd new_file = memory_file(new_bytes);
  auto result = compute_delta(new_file.get(), *sig, recorder);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error());
  out.result = *result;
  EXPECT_EQ(result->size, new_bytes.size());
  EXPECT_EQ(result->hash, patcher.digest());
  EXPECT_EQ(result->hash, strong_hash(new_bytes.data(), new_bytes.size()));
  return out;
}

TEST(DeltaTest, BlockLengthIsTheSquareRootWithinRsyncsBounds) {
  EXPECT_EQ(block_length(0), kMinBlock);
  EXPECT_EQ(block_length(100000), kMinBlock);
  EXPECT_EQ(block_length(std::uint64_t{256} << 20), 16384u);
  EXPECT_EQ(block_length(1000000), 1000u);
  EXPECT_EQ(block_length(1000 * 1003) % 8, 0u);
  EXPECT_EQ(block_length(std::uint64_t{1} << 40), kMaxBlock);
  EXPECT_EQ(block_count(0, 700), 0u);
  EXPECT_EQ(block_count(700, 700), 1u);
  EXPECT_EQ(block_count(701, 700), 2u);
}

TEST(DeltaTest, RollingSumEqualsTheSumOfTheWindow) {
  std::string data = random_bytes(5000, 1);
  auto* p = reinterpret_cast<const unsigned char*>(data.data());
  RollingSum rolled, direct;
  rolled.reset(p, 700);
  for (std::size_t i = 1; i + 700 <= data.size(); ++i) {
    rolled.roll(p[i - 1], p[i + 699]);
    direct.reset(p + i, 700);
    ASSERT_EQ(rolled.value(), direct.value()) << i;
  }
}

TEST(DeltaTest, SignatureIsTheSameOnOneThreadOrMany) {
  std::string data = random_bytes(5 * 1024 * 1024 + 123, 2);
  Fd fd = memory_file(data);
  auto one = compute_signature(fd.get(), data.size(), 1);
  auto many = compute_signature(fd.get(), data.size(), 8);
  ASSERT_TRUE(one.ok() && many.ok());
  EXPECT_EQ(*one, *many);
  EXPECT_EQ(one->blocks.size(), block_count(data.size(), one->block));
  auto shorter = compute_signature(fd.get(), data.size() + 1, 2);
  ASSERT_FALSE(shorter.ok());
  EXPECT_NE(shorter.error().find("changed while read"), std::string::npos);
}

TEST(DeltaTest, AnUnchangedFileIsAllCopies) {
  std::string data = random_bytes(3 * 1024 * 1024 + 77, 3);
  Rebuilt r = sync_bytes(data, data);
  EXPECT_TRUE(r.bytes == data);
  EXPECT_EQ(r.result.literal_bytes, 0u);
  EXPECT_EQ(r.copies, 1u);  // one run of every block, the short last one too
}

TEST(DeltaTest, ScatteredEditsSendAboutTheEditedBlocks) {
  std::string old_bytes = random_bytes(4 * 1024 * 1024, 4);
  std::string new_bytes = old_bytes;
  std::mt19937 rng(5);
  for (int e = 0; e < 10; ++e) {
    std::size_t at = rng() % (new_bytes.size() - 3000);
    for (std::size_t i = 0; i < 3000; ++i) new_bytes[at + i] = static_cast<char>(rng());
  }
  Rebuilt r = sync_bytes(old_bytes, new_bytes);
  EXPECT_TRUE(r.bytes == new_bytes);
  std::uint32_t block = block_length(old_bytes.size());
  EXPECT_LE(r.result.literal_bytes, 10 * (3000 + 2 * block));
}

TEST(DeltaTest, InsertsAndDeletionsShiftByOneByte) {
  std::string old_bytes = random_bytes(1024 * 1024 + 5, 6);
  std::string inserted = old_bytes;
  inserted.insert(inserted.begin() + 1, 'x');
  inserted.insert(inserted.begin() + 500000, 'y');
  Rebuilt r = sync_bytes(old_bytes, inserted);
  EXPECT_TRUE(r.bytes == inserted);
  std::uint32_t block = block_length(old_bytes.size());
  EXPECT_LE(r.result.literal_bytes, 4u * block);
  std::string removed = old_bytes;
  removed.erase(300000, 1);
  Rebuilt d = sync_bytes(old_bytes, removed);
  EXPECT_TRUE(d.bytes == removed);
  EXPECT_LE(d.result.literal_bytes, 2u * block);
}

TEST(DeltaTest, EmptyOneByteAndBlockBoundaryFiles) {
  std::string big = random_bytes(700 * 5, 7);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"", "a"},
      {"a", ""},
      {"a", "a"},
      {"a", "b"},
      {big.substr(0, 700), big.substr(0, 700)},     // exactly one block
      {big.substr(0, 1400), big.substr(0, 1401)},   // a byte past a boundary
      {big.substr(0, 1401), big.substr(0, 1400)},   // the short last block gone
      {big.substr(0, 1401), big.substr(700, 701)},  // the first block gone
      {big, big.substr(0, 699) + big.substr(700)},  // a byte gone in the first block
      {big.substr(0, 2000), big.substr(0, 2000) + big.substr(0, 2000)},  // repeated
  };
  for (const auto& [o, n] : cases) {
    Rebuilt r = sync_bytes(o, n);
    EXPECT_TRUE(r.bytes == n) << o.size() << " -> " << n.size();
  }
  Rebuilt same = sync_bytes(big.substr(0, 1401), big.substr(0, 1401));
  EXPECT_EQ(same.result.literal_bytes, 0u);  // the short last block matched at the end
}

TEST(DeltaTest, LongLiteralsArePiecesOfAtMostTheLimit) {
  std::string new_bytes = random_bytes(3 * kMaxLiteral + 10, 8);
  Rebuilt r = sync_bytes(random_bytes(100000, 9), new_bytes);  // Recorder checks each piece
  EXPECT_TRUE(r.bytes == new_bytes);
  EXPECT_EQ(r.result.literal_bytes, new_bytes.size());
}

TEST(DeltaTest, AMalformedSignatureIsIgnoredNotTrusted) {
  Signature bad{1000000, 1000, {}};  // no blocks for its size
  std::string out;
  Fd old_file = memory_file("");
  Patcher patcher(old_file.get(), 0, 700, [&](std::string_view b) -> Result<void> {
    out.append(b);
    return {};
  });
  Fd new_file = memory_file("new bytes");
  auto result = compute_delta(new_file.get(), bad, patcher);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(out, "new bytes");
}

}  // namespace
}  // namespace pdx
