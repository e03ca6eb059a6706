#include "transport/known_hosts.h"

#include <gtest/gtest.h>
#include <libssh2.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

std::string b64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  out.resize(static_cast<std::size_t>(EVP_EncodeBlock(
      reinterpret_cast<unsigned char*>(out.data()),
      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()))));
  return out;
}

/// An ed25519 public key blob whose 32 key bytes are all `fill`.
std::string key_blob(char fill) {
  std::string blob("\0\0\0\x0bssh-ed25519\0\0\0\x20", 4 + 11 + 4);
  return blob + std::string(32, fill);
}

/// An ecdsa-sha2-nistp256 public key blob (not a valid point: only its type is read).
std::string ecdsa_blob(char fill) {
  std::string blob(
      "\0\0\0\x13"
      "ecdsa-sha2-nistp256\0\0\0\x08nistp256\0\0\0\x41",
      4 + 19 + 4 + 8 + 4);
  return blob + std::string(65, fill);
}

HostKey key(const std::string& blob) {
  return HostKey{blob, LIBSSH2_HOSTKEY_TYPE_ED25519};
}

/// OpenSSH's hashed form of a name: |1|base64(salt)|base64(HMAC-SHA1(salt, name)).
std::string hashed(const std::string& name) {
  std::string salt(20, 's');
  unsigned char mac[20];
  unsigned len = 0;
  HMAC(EVP_sha1(), salt.data(), static_cast<int>(salt.size()),
       reinterpret_cast<const unsigned char*>(name.data()), name.size(), mac, &len);
  return "|1|" + b64(salt) + "|" + b64(std::string(reinterpret_cast<char*>(mac), len));
}

class KnownHostsTest : public ::testing::Test {
 protected:
  void SetUp() override { file_ = dir_ / "known_hosts"; }
  void write(const std::string& text) { std::ofstream(file_) << text; }
  std::string read() {
    std::ifstream in(file_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  long lines() {
    auto text = read();
    return std::count(text.begin(), text.end(), '\n');
  }
  test::TempDir dir_;
  std::string file_;
  const std::string a_ = key_blob('a'), b_ = key_blob('b');
};

TEST_F(KnownHostsTest, PlainEntryMatchesOnlyItsPort) {
  write("# comment\n[10.0.0.1]:2222 ssh-ed25519 " + b64(a_) + "\n10.0.0.2 ssh-ed25519 " + b64(a_) +
        "\n");
  KnownHosts kh({file_}, {});
  EXPECT_TRUE(kh.verify("10.0.0.1", 2222, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
  EXPECT_TRUE(kh.verify("10.0.0.2", 22, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
  // ssh's rule: a non-22 port needs its own "[host]:port" entry.
  EXPECT_FALSE(kh.verify("10.0.0.2", 2222, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
}

TEST_F(KnownHostsTest, HashedEntryMatches) {
  write(hashed("[node1]:2222") + " ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({file_}, {});
  EXPECT_TRUE(kh.verify("node1", 2222, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
  auto changed = kh.verify("node1", 2222, key(b_), HostKeyPolicy::strict, HashNames::no);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.error().find("HOST KEY CHANGED"), std::string::npos);
}

TEST_F(KnownHostsTest, UnknownKeyRefusedWithHowToAccept) {
  write("");
  KnownHosts kh({file_}, {});
  auto r = kh.verify("node9", 22, key(a_), HostKeyPolicy::strict, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not known"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("-o StrictHostKeyChecking=accept-new"), std::string::npos);
  EXPECT_NE(r.error().find("SHA256:"), std::string::npos);
  // The summary names the host: hosts refused alike fold into one line.
  EXPECT_EQ(r.error().find("node9"), std::string::npos) << r.error();
  EXPECT_EQ(r.error(),
            kh.verify("node8", 22, key(a_), HostKeyPolicy::strict, HashNames::no).error());
  EXPECT_EQ(read(), "");
}

TEST_F(KnownHostsTest, AcceptNewRecordsTheKeyOnce) {
  write("other ssh-ed25519 " + b64(b_));  // no final newline: the new line must not join it
  {
    KnownHosts kh({file_}, {});
    EXPECT_TRUE(kh.verify("node9", 2200, key(a_), HostKeyPolicy::accept_new, HashNames::no).ok());
    EXPECT_TRUE(kh.verify("node9", 2200, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
    // A different key for the host just recorded is a changed key, naming the new line.
    auto r = kh.verify("node9", 2200, key(b_), HostKeyPolicy::accept_new, HashNames::no);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find(file_ + ":2"), std::string::npos) << r.error();
  }
  EXPECT_EQ(read(),
            "other ssh-ed25519 " + b64(b_) + "\n[node9]:2200 ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts again({file_}, {});
  EXPECT_TRUE(again.verify("node9", 2200, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
}

TEST_F(KnownHostsTest, HashKnownHostsRecordsAHashedName) {
  write("");
  {
    KnownHosts kh({file_}, {});
    EXPECT_TRUE(kh.verify("node9", 2200, key(a_), HostKeyPolicy::accept_new, HashNames::yes).ok());
  }
  auto text = read();
  EXPECT_EQ(text.rfind("|1|", 0), 0u) << text;
  EXPECT_EQ(text.find("node9"), std::string::npos) << text;
  KnownHosts again({file_}, {});
  EXPECT_TRUE(again.verify("node9", 2200, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
  EXPECT_FALSE(again.verify("node9", 2200, key(b_), HostKeyPolicy::strict, HashNames::no).ok());
}

TEST_F(KnownHostsTest, ChangedKeyRefusedUnderEveryPolicyNamingFileAndLine) {
  write("# first\n\nnode1 ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({"/nonexistent/known_hosts", file_}, {});
  for (auto policy : {HostKeyPolicy::strict, HostKeyPolicy::accept_new, HostKeyPolicy::no}) {
    auto r = kh.verify("node1", 22, key(b_), policy, HashNames::no);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("HOST KEY CHANGED (now "), std::string::npos) << r.error();
    EXPECT_NE(r.error().find(file_ + ":3"), std::string::npos) << r.error();
  }
}

TEST_F(KnownHostsTest, RevokedKeyRefusedUnderEveryPolicyEvenWhenAlsoListed) {
  write("@revoked * ssh-ed25519 " + b64(a_) + "\n[node1]:2222 ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({file_}, {});
  for (auto policy : {HostKeyPolicy::strict, HostKeyPolicy::accept_new, HostKeyPolicy::no}) {
    auto r = kh.verify("node1", 2222, key(a_), policy, HashNames::no);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("REVOKED host key ("), std::string::npos) << r.error();
    EXPECT_NE(r.error().find(file_ + ":1"), std::string::npos) << r.error();
  }
}

TEST_F(KnownHostsTest, HostsSharingOneKeyMatchTheirOwnLinesHashedOrNot) {
  std::string text;
  for (int i = 1; i <= 20; ++i) {
    std::string name = "[node" + std::to_string(i) + "]:2222";
    text += (i % 2 ? hashed(name) : name) + " ssh-ed25519 " + b64(a_) + "\n";
  }
  write(text);
  KnownHosts kh({file_}, {});
  for (int i = 1; i <= 20; ++i)
    EXPECT_TRUE(
        kh.verify("node" + std::to_string(i), 2222, key(a_), HostKeyPolicy::strict, HashNames::no)
            .ok())
        << i;
  EXPECT_FALSE(kh.verify("node21", 2222, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
}

TEST_F(KnownHostsTest, HashedLinesSharingAKeyMatchInAnyOrderAndAgain) {
  std::string text;
  for (int i = 1; i <= 6; ++i)
    text += hashed("[node" + std::to_string(i) + "]:2222") + " ssh-ed25519 " + b64(a_) + "\n";
  write(text + hashed("[node7]:2222") + " ssh-ed25519 " + b64(b_) + "\n");
  KnownHosts kh({file_}, {});
  auto ok = [&](int i, const std::string& blob) {
    return kh
        .verify("node" + std::to_string(i), 2222, key(blob), HostKeyPolicy::strict, HashNames::no)
        .ok();
  };
  for (int i : {4, 2, 6, 1, 4, 5, 3, 2}) EXPECT_TRUE(ok(i, a_)) << i;
  EXPECT_FALSE(ok(7, a_));  // its line holds another key
  EXPECT_TRUE(ok(7, b_));
  EXPECT_FALSE(ok(3, b_));  // a change, for a name its line was already matched with
  EXPECT_FALSE(ok(8, a_));
}

TEST_F(KnownHostsTest, RevokedHashedLineAfterAMatchStillRefuses) {
  write("[node1]:2222 ssh-ed25519 " + b64(a_) + "\n" + hashed("[node2]:2222") + " ssh-ed25519 " +
        b64(a_) + "\n@revoked " + hashed("[node1]:2222") + " ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({file_}, {});
  for (int twice = 0; twice < 2; ++twice) {  // the second time, the revoked line is filed by name
    auto r = kh.verify("node1", 2222, key(a_), HostKeyPolicy::strict, HashNames::no);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("REVOKED"), std::string::npos) << r.error();
    EXPECT_NE(r.error().find(file_ + ":3"), std::string::npos) << r.error();
  }
  EXPECT_TRUE(kh.verify("node2", 2222, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
}

TEST_F(KnownHostsTest, RevokedInTheGlobalFileRefusesWhatTheUserFileMatches) {
  write("[node1]:2222 ssh-ed25519 " + b64(a_) + "\n");
  std::string global = dir_ / "ssh_known_hosts";
  std::ofstream(global) << "# global\n@revoked " << hashed("[node1]:2222") << " ssh-ed25519 "
                        << b64(a_) << "\n";
  KnownHosts kh({file_}, {global});
  auto r = kh.verify("node1", 2222, key(a_), HostKeyPolicy::strict, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(global + ":2"), std::string::npos) << r.error();
}

TEST_F(KnownHostsTest, LinesWithTabsCarriageReturnsAndNameListsParse) {
  write("\n  # indented comment\n\tNode1,,node2 \t ssh-ed25519\t" + b64(a_) +
        " a comment\r\n[node3]:2222 ssh-ed25519 " + b64(a_) + "\r\nnode4 ssh-ed25519\n" +
        "node5 ssh-rsa " + b64(a_) + "\nnode6 ssh-ed25519 " + b64(a_));  // no final newline
  KnownHosts kh({file_}, {});
  auto ok = [&](const char* host, int port) {
    return kh.verify(host, port, key(a_), HostKeyPolicy::strict, HashNames::no).ok();
  };
  EXPECT_TRUE(ok("node1", 22));
  EXPECT_TRUE(ok("node2", 22));
  EXPECT_TRUE(ok("node3", 2222));
  EXPECT_FALSE(ok("node4", 22));  // no key
  EXPECT_FALSE(ok("node5", 22));  // the key is not of the type named
  EXPECT_TRUE(ok("node6", 22));
  auto changed = kh.verify("node6", 22, key(b_), HostKeyPolicy::strict, HashNames::no);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.error().find(file_ + ":7"), std::string::npos) << changed.error();
}

TEST_F(KnownHostsTest, RevokedKeyIsNeverRecorded) {
  write("@revoked " + hashed("[node1]:2222") + " ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({file_}, {});
  for (auto policy : {HostKeyPolicy::accept_new, HostKeyPolicy::no}) {
    auto r = kh.verify("node1", 2222, key(a_), policy, HashNames::no);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("REVOKED"), std::string::npos) << r.error();
  }
  EXPECT_EQ(lines(), 1);
  EXPECT_TRUE(kh.known_types("node1", 2222).empty());
}

TEST_F(KnownHostsTest, CertAuthorityLinesAreSkipped) {
  write("@cert-authority * ssh-ed25519 " + b64(a_) + "\n@unknown-marker * ssh-ed25519 " + b64(a_) +
        "\n");
  KnownHosts kh({file_}, {});
  auto r = kh.verify("node1", 22, key(a_), HostKeyPolicy::strict, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not known"), std::string::npos) << r.error();
  EXPECT_TRUE(kh.known_types("node1", 22).empty());
}

TEST_F(KnownHostsTest, WildcardEntryWithAnotherKeyIsChanged) {
  write("[10.0.0.*]:2222 ssh-ed25519 " + b64(b_) + "\n");
  KnownHosts kh({file_}, {});
  EXPECT_TRUE(kh.verify("10.0.0.2", 2222, key(b_), HostKeyPolicy::strict, HashNames::no).ok());
  auto r = kh.verify("10.0.0.2", 2222, key(a_), HostKeyPolicy::accept_new, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("HOST KEY CHANGED"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find(file_ + ":1"), std::string::npos) << r.error();
  EXPECT_EQ(read(), "[10.0.0.*]:2222 ssh-ed25519 " + b64(b_) + "\n");
}

TEST_F(KnownHostsTest, NegatedPatternExcludesTheLine) {
  write("node*,!node13 ssh-ed25519 " + b64(b_) + "\n");
  KnownHosts kh({file_}, {});
  EXPECT_FALSE(kh.verify("node12", 22, key(a_), HostKeyPolicy::accept_new, HashNames::no).ok());
  EXPECT_TRUE(kh.verify("node13", 22, key(a_), HostKeyPolicy::accept_new, HashNames::no).ok());
  EXPECT_NE(read().find("\nnode13 ssh-ed25519 " + b64(a_) + "\n"), std::string::npos) << read();
}

TEST_F(KnownHostsTest, HostNamesAreCaseInsensitive) {
  write("[localhost]:2222 ssh-ed25519 " + b64(b_) + "\nNODE2 ssh-ed25519 " + b64(b_) + "\n");
  KnownHosts kh({file_}, {});
  auto r = kh.verify("LocalHost", 2222, key(a_), HostKeyPolicy::accept_new, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("HOST KEY CHANGED (now "), std::string::npos) << r.error();
  EXPECT_NE(r.error().find(file_ + ":1: "), std::string::npos) << r.error();  // matched lower case
  EXPECT_TRUE(kh.verify("node2", 22, key(b_), HostKeyPolicy::strict, HashNames::no).ok());
  EXPECT_TRUE(kh.verify("NODE9", 2200, key(a_), HostKeyPolicy::accept_new, HashNames::no).ok());
  EXPECT_NE(read().find("[node9]:2200 ssh-ed25519"), std::string::npos) << read();
}

TEST_F(KnownHostsTest, KeyOfAnotherTypeKnownIsRefusedUnderEveryPolicy) {
  const std::string ecdsa = ecdsa_blob('e');
  write("# x\n[node1]:2222 ecdsa-sha2-nistp256 " + b64(ecdsa) + "\n");
  KnownHosts kh({file_}, {});
  EXPECT_EQ(kh.known_types("NODE1", 2222), std::vector<std::string>{"ecdsa-sha2-nistp256"});
  for (auto policy : {HostKeyPolicy::strict, HostKeyPolicy::accept_new, HostKeyPolicy::no}) {
    auto r = kh.verify("node1", 2222, key(a_), policy, HashNames::no);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("a key of type ecdsa-sha2-nistp256 is known at " + file_ + ":2"),
              std::string::npos)
        << r.error();
  }
  EXPECT_EQ(lines(), 2);
  EXPECT_TRUE(kh.verify("node1", 2222, HostKey{ecdsa, LIBSSH2_HOSTKEY_TYPE_ECDSA_256},
                        HostKeyPolicy::strict, HashNames::no)
                  .ok());
}

TEST_F(KnownHostsTest, NothingRecordedWithoutAUserFile) {
  write("");
  std::vector<std::string> warnings;
  KnownHosts kh({}, {file_}, [&](const std::string& w) { warnings.push_back(w); });
  auto r = kh.verify("node9", 22, key(a_), HostKeyPolicy::accept_new, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("no UserKnownHostsFile"), std::string::npos) << r.error();
  EXPECT_TRUE(warnings.empty());
  // StrictHostKeyChecking=no: as ssh, a key that cannot be recorded is a warning.
  EXPECT_TRUE(kh.verify("node9", 22, key(a_), HostKeyPolicy::no, HashNames::no).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cannot record the host key of node9"), std::string::npos);
  EXPECT_EQ(read(), "");
}

TEST_F(KnownHostsTest, AFileThatIsNotOneFailsEveryHostSayingWhy) {
  for (const std::string& file : {std::string("/dev/zero"), dir_.path().string()}) {
    KnownHosts kh({file}, {});
    auto r = kh.verify("node9", 22, key(a_), HostKeyPolicy::no, HashNames::no);
    ASSERT_FALSE(r.ok()) << file;
    EXPECT_EQ(r.error().find("cannot read known_hosts " + file + ": "), 0u) << r.error();
  }
}

TEST_F(KnownHostsTest, WriteFailureRefusesUnderAcceptNewWarnsUnderNo) {
  std::vector<std::string> warnings;
  KnownHosts kh({(dir_.path() / "missing" / "ssh" / "known_hosts").string()}, {},
                [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_FALSE(kh.verify("node9", 22, key(a_), HostKeyPolicy::accept_new, HashNames::no).ok());
  EXPECT_TRUE(kh.verify("node9", 22, key(a_), HostKeyPolicy::no, HashNames::no).ok());
  EXPECT_EQ(warnings.size(), 1u);
}

TEST_F(KnownHostsTest, RecordingCreatesTheDirectory0700) {
  auto file = dir_.path() / "dot-ssh" / "known_hosts";
  KnownHosts kh({file.string()}, {});
  EXPECT_TRUE(kh.verify("node9", 22, key(a_), HostKeyPolicy::accept_new, HashNames::no).ok());
  auto perms = std::filesystem::status(file.parent_path()).permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all, std::filesystem::perms::owner_all);
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST_F(KnownHostsTest, FileIsCheckedAgainUnderTheLock) {
  write("");
  KnownHosts kh({file_}, {});
  // Another pdx records a key for the host after this one loaded the file.
  write("# other run\n[node9]:2200 ssh-ed25519 " + b64(b_) + "\n");
  auto r = kh.verify("node9", 2200, key(a_), HostKeyPolicy::accept_new, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(file_ + ":2"), std::string::npos) << r.error();
  EXPECT_TRUE(kh.verify("node9", 2200, key(b_), HostKeyPolicy::accept_new, HashNames::no).ok());
  EXPECT_EQ(read(), "# other run\n[node9]:2200 ssh-ed25519 " + b64(b_) + "\n");
}

TEST_F(KnownHostsTest, NamesThatWouldInjectALineAreNotRecorded) {
  write("");
  KnownHosts kh({file_}, {});
  for (const char* name :
       {"evil\n* ssh-ed25519 x", "a b", "a,b", "node*", "!x", "#x", "@revoked"}) {
    auto r = kh.verify(name, 22, key(a_), HostKeyPolicy::accept_new, HashNames::no);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.error().find("cannot be written to known_hosts"), std::string::npos) << r.error();
  }
  EXPECT_EQ(read(), "");
}

TEST_F(KnownHostsTest, KnownTypesArePerHostWhenTheFilesHoldSeveral) {
  const std::string ecdsa = ecdsa_blob('e');
  write("[node1]:2222 ecdsa-sha2-nistp256 " + b64(ecdsa) + "\n" + hashed("[node2]:2222") +
        " ssh-ed25519 " + b64(a_) + "\n@revoked [node3]:2222 ecdsa-sha2-nistp256 " + b64(ecdsa) +
        "\n");
  KnownHosts kh({file_}, {});
  EXPECT_EQ(kh.known_types("node1", 2222), std::vector<std::string>{"ecdsa-sha2-nistp256"});
  EXPECT_EQ(kh.known_types("node2", 2222), std::vector<std::string>{"ssh-ed25519"});
  EXPECT_TRUE(kh.known_types("node3", 2222).empty());
}

TEST_F(KnownHostsTest, OneKeyTypeInTheFilesIsAskedOfEveryHost) {
  write(hashed("[node1]:2222") + " ssh-ed25519 " + b64(a_) + "\n@revoked [node2]:2222 " +
        "ecdsa-sha2-nistp256 " + b64(ecdsa_blob('e')) + "\n");
  KnownHosts kh({file_}, {});
  EXPECT_EQ(kh.known_types("node1", 2222), std::vector<std::string>{"ssh-ed25519"});
  EXPECT_EQ(kh.known_types("node9", 22), std::vector<std::string>{"ssh-ed25519"});
}

TEST_F(KnownHostsTest, HashedEntriesWithOtherKeysStillTellAChange) {
  write(hashed("[node2]:2222") + " ssh-ed25519 " + b64(a_) + "\n" + hashed("[node1]:2222") +
        " ssh-ed25519 " + b64(a_) + "\n|1|bm90IGJhc2U2NA|x ssh-ed25519 " + b64(b_) + "\n");
  KnownHosts kh({file_}, {});
  EXPECT_TRUE(kh.verify("node1", 2222, key(a_), HostKeyPolicy::strict, HashNames::no).ok());
  auto r = kh.verify("node1", 2222, key(b_), HostKeyPolicy::accept_new, HashNames::no);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("does not match " + file_ + ":2"), std::string::npos) << r.error();
  EXPECT_EQ(lines(), 3);  // the undecodable hashed line matched nothing, and nothing was added
}

TEST_F(KnownHostsTest, KnownKeyTypesAreAskedForFirst) {
  const std::string order = "ssh-ed25519,ecdsa-sha2-nistp256,rsa-sha2-512,rsa-sha2-256,ssh-rsa";
  EXPECT_EQ(prefer_known_types(order, {}), order);
  EXPECT_EQ(prefer_known_types(order, {"ssh-rsa"}),
            "rsa-sha2-512,rsa-sha2-256,ssh-rsa,ssh-ed25519,ecdsa-sha2-nistp256");
  EXPECT_EQ(prefer_known_types(order, {"ecdsa-sha2-nistp256", "ssh-ed25519"}),
            "ssh-ed25519,ecdsa-sha2-nistp256,rsa-sha2-512,rsa-sha2-256,ssh-rsa");
}

TEST_F(KnownHostsTest, PolicyNames) {
  EXPECT_EQ(parse_host_key_policy(""), HostKeyPolicy::strict);
  EXPECT_EQ(parse_host_key_policy("ask"), HostKeyPolicy::strict);
  EXPECT_EQ(parse_host_key_policy("yes"), HostKeyPolicy::strict);
  EXPECT_EQ(parse_host_key_policy("accept-new"), HostKeyPolicy::accept_new);
  EXPECT_EQ(parse_host_key_policy("no"), HostKeyPolicy::no);
  EXPECT_EQ(parse_host_key_policy("off"), HostKeyPolicy::no);
}

TEST_F(KnownHostsTest, NamesAndFingerprints) {
  EXPECT_EQ(known_hosts_name("h", 22), "h");
  EXPECT_EQ(known_hosts_name("h", 2222), "[h]:2222");
  EXPECT_EQ(fingerprint(key(a_)).rfind("ssh-ed25519 SHA256:", 0), 0u);
}

}  // namespace
}  // namespace pdx
