#include "agent/sealed_record.h"

#include <gtest/gtest.h>

#include <vector>

namespace pdx {
namespace {

const std::string kSecret(32, 's');
const std::string kContext = "nonces of both ends";

// A direction of one link: what the connector seals, the listener opens.
struct Direction {
  explicit Direction(std::string_view secret = kSecret, std::string_view opener_secret = kSecret,
                     std::size_t max = 1 << 20)
      : sealer(link_keys(secret, kContext, LinkEnd::connector).send),
        opener(link_keys(opener_secret, kContext, LinkEnd::listener).receive, max, "test record") {}
  std::string seal(std::string_view plaintext, std::uint8_t kind = 'c') {
    std::string out;
    sealer.seal(kind, plaintext, out);
    return out;
  }
  Result<std::string> open(std::string_view record) {
    auto h = opener.header(record.substr(0, kRecordHeader));
    if (!h) return h.error();
    return opener.open(record.substr(0, kRecordHeader), std::string(record.substr(kRecordHeader)));
  }
  RecordSealer sealer;
  RecordOpener opener;
};

constexpr const char* kFailed = "a test record failed its check";

TEST(SealedRecord, ARecordOpensToWhatWasSealedInOrder) {
  Direction d;
  std::vector<std::string> records;
  for (std::string_view p : {"first", "", "third, longer than one AES block of sixteen bytes"})
    records.push_back(d.seal(p));
  EXPECT_EQ(records[0].size(), kRecordHeader + 5 + kRecordTag);
  EXPECT_EQ(*d.open(records[0]), "first");
  EXPECT_EQ(*d.open(records[1]), "");
  EXPECT_EQ(*d.open(records[2]), "third, longer than one AES block of sixteen bytes");
}

TEST(SealedRecord, ItsBytesAreNotThePlaintext) {
  Direction d;
  std::string plaintext(4096, 'A');
  std::string record = d.seal(plaintext);
  EXPECT_EQ(record.find("AAAAAAAA"), std::string::npos);
  EXPECT_NE(d.seal(plaintext), record) << "the same plaintext again: another nonce";
}

TEST(SealedRecord, KindAndLengthAreInTheHeaderAndAuthenticated) {
  Direction d;
  std::string record = d.seal("abc", 'k');
  auto h = d.opener.header(std::string_view(record).substr(0, kRecordHeader));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->kind, 'k');
  EXPECT_EQ(h->length, 3u);
  record[0] = 'c';  // another kind
  EXPECT_EQ(d.open(record).error(), kFailed);
}

TEST(SealedRecord, AnyFlippedByteFailsAndSoDoesEveryRecordAfter) {
  for (std::size_t at :
       {std::size_t(0), std::size_t(4), kRecordHeader, kRecordHeader + 2, kRecordHeader + 3 + 5}) {
    Direction d;
    std::string record = d.seal("abc");
    std::string next = d.seal("def");
    record[at] ^= 1;
    auto got = d.open(record);
    ASSERT_FALSE(got) << "byte " << at;
    EXPECT_EQ(got.error(), kFailed);
    EXPECT_EQ(d.open(next).error(), kFailed) << "the link is done";
  }
}

TEST(SealedRecord, AReplayedRecordFails) {
  Direction d;
  std::string first = d.seal("abc");
  EXPECT_TRUE(d.open(first));
  EXPECT_EQ(d.open(first).error(), kFailed);
}

TEST(SealedRecord, ReorderedOrDroppedRecordsFail) {
  Direction reordered;
  std::string a = reordered.seal("a"), b = reordered.seal("b");
  EXPECT_EQ(reordered.open(b).error(), kFailed);
  Direction dropped;
  (void)dropped.seal("a");
  EXPECT_EQ(dropped.open(dropped.seal("b")).error(), kFailed);
}

TEST(SealedRecord, ATruncatedRecordFails) {
  Direction d;
  std::string record = d.seal("abcdef");
  record.pop_back();
  EXPECT_EQ(d.open(record).error(), kFailed);
}

TEST(SealedRecord, ALengthOverTheBoundIsRefusedFromTheHeader) {
  Direction d(kSecret, kSecret, 8);
  std::string record = d.seal("123456789");
  auto h = d.opener.header(std::string_view(record).substr(0, kRecordHeader));
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error(), "a test record over its limit");
  EXPECT_TRUE(Direction(kSecret, kSecret, 8).open(Direction().seal("12345678")));
}

TEST(SealedRecord, AnotherSecretFails) {
  Direction d(kSecret, std::string(32, 't'));
  EXPECT_EQ(d.open(d.seal("abc")).error(), kFailed);
}

TEST(SealedRecord, KeysArePerLinkAndPerDirection) {
  LinkKeys connector = link_keys(kSecret, kContext, LinkEnd::connector);
  LinkKeys listener = link_keys(kSecret, kContext, LinkEnd::listener);
  EXPECT_EQ(connector.send.key, listener.receive.key);
  EXPECT_EQ(connector.send.salt, listener.receive.salt);
  EXPECT_EQ(connector.receive.key, listener.send.key);
  EXPECT_NE(connector.send.key, connector.receive.key) << "one key per direction";
  EXPECT_EQ(connector.send.key.size(), RecordKey::kKeySize);
  EXPECT_NE(link_keys(kSecret, "other nonces", LinkEnd::connector).send.key, connector.send.key);
  // A record sent back to its sender does not open.
  RecordSealer sealer(connector.send);
  RecordOpener back(connector.receive, 1024, "test record");
  std::string record;
  sealer.seal('c', "abc", record);
  auto opened =
      back.open(std::string_view(record).substr(0, kRecordHeader), record.substr(kRecordHeader));
  EXPECT_EQ(opened.error(), kFailed);
}

TEST(SealedRecord, IsAes128GcmWithTheSequenceNumberInTheNonce) {
  // NIST's GCM test case 2: AES-128, zero key and IV, 16 zero bytes; the header is only
  // authenticated, so the ciphertext is the test's.
  RecordSealer sealer(RecordKey{std::string(16, '\0'), std::string(4, '\0')});
  std::string record;
  sealer.seal('c', std::string(16, '\0'), record);
  EXPECT_EQ(record.substr(kRecordHeader, 16),
            std::string("\x03\x88\xda\xce\x60\xb6\xa3\x92\xf3\x28\xc2\xb9\x71\xb2\xfe\x78", 16));
  std::string second;
  sealer.seal('c', std::string(16, '\0'), second);
  EXPECT_NE(second.substr(kRecordHeader, 16), record.substr(kRecordHeader, 16))
      << "the next record, the next nonce";
}

}  // namespace
}  // namespace pdx
