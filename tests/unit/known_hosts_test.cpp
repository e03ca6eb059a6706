#include "transport/known_hosts.h"

#include <gtest/gtest.h>
#include <libssh2.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/temp_file.h"

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
  void SetUp() override {
    dir_ = test::temp_dir() / ("known_hosts_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    file_ = (dir_ / "known_hosts").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& text) { std::ofstream(file_) << text; }
  std::string read() {
    std::ifstream in(file_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path dir_;
  std::string file_;
  const std::string a_ = key_blob('a'), b_ = key_blob('b');
};

TEST_F(KnownHostsTest, PlainEntryMatchesOnlyItsPort) {
  write("# comment\n[10.0.0.1]:2222 ssh-ed25519 " + b64(a_) + "\n10.0.0.2 ssh-ed25519 " + b64(a_) +
        "\n");
  KnownHosts kh({file_});
  EXPECT_TRUE(kh.verify("10.0.0.1", 2222, key(a_), HostKeyPolicy::strict).ok());
  EXPECT_TRUE(kh.verify("10.0.0.2", 22, key(a_), HostKeyPolicy::strict).ok());
  // ssh's rule: a non-22 port needs its own "[host]:port" entry.
  EXPECT_FALSE(kh.verify("10.0.0.2", 2222, key(a_), HostKeyPolicy::strict).ok());
}

TEST_F(KnownHostsTest, HashedEntryMatches) {
  write(hashed("[node1]:2222") + " ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({file_});
  EXPECT_TRUE(kh.verify("node1", 2222, key(a_), HostKeyPolicy::strict).ok());
  auto changed = kh.verify("node1", 2222, key(b_), HostKeyPolicy::strict);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.error().find("HOST KEY CHANGED"), std::string::npos);
}

TEST_F(KnownHostsTest, UnknownKeyRefusedWithHowToAccept) {
  write("");
  KnownHosts kh({file_});
  auto r = kh.verify("node9", 22, key(a_), HostKeyPolicy::strict);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not known"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("-o StrictHostKeyChecking=accept-new"), std::string::npos);
  EXPECT_NE(r.error().find("SHA256:"), std::string::npos);
  EXPECT_EQ(read(), "");
}

TEST_F(KnownHostsTest, AcceptNewRecordsTheKeyOnce) {
  write("other ssh-ed25519 " + b64(b_));  // no final newline: the new line must not join it
  {
    KnownHosts kh({file_});
    EXPECT_TRUE(kh.verify("node9", 2200, key(a_), HostKeyPolicy::accept_new).ok());
    EXPECT_TRUE(kh.verify("node9", 2200, key(a_), HostKeyPolicy::strict).ok());
    // A different key for the host just recorded is a changed key, naming the new line.
    auto r = kh.verify("node9", 2200, key(b_), HostKeyPolicy::accept_new);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find(file_ + ":2"), std::string::npos) << r.error();
  }
  EXPECT_EQ(read(),
            "other ssh-ed25519 " + b64(b_) + "\n[node9]:2200 ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts again({file_});
  EXPECT_TRUE(again.verify("node9", 2200, key(a_), HostKeyPolicy::strict).ok());
}

TEST_F(KnownHostsTest, ChangedKeyRefusedUnderEveryPolicyNamingFileAndLine) {
  write("# first\n\nnode1 ssh-ed25519 " + b64(a_) + "\n");
  KnownHosts kh({"/nonexistent/known_hosts", file_});
  for (auto policy : {HostKeyPolicy::strict, HostKeyPolicy::accept_new, HostKeyPolicy::no}) {
    auto r = kh.verify("node1", 22, key(b_), policy);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("HOST KEY CHANGED for node1"), std::string::npos) << r.error();
    EXPECT_NE(r.error().find(file_ + ":3"), std::string::npos) << r.error();
  }
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
