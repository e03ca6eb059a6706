#include "transport/ssh_identity.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <fstream>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

// Test-only keys, made with ssh-keygen -t ed25519 (the second with passphrase "pw").
const char* const kPlain = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDhafmB8Ugf6CuLJs54bvMZkm6xyXct7jQHhlUBRDbmEQAAAIgIrPVYCKz1
WAAAAAtzc2gtZWQyNTUxOQAAACDhafmB8Ugf6CuLJs54bvMZkm6xyXct7jQHhlUBRDbmEQ
AAAEBuV5nywIJXcH7ZdIv7DN5gwfry+etl3foXO2qH4RnOuOFp+YHxSB/oK4smznhu8xmS
brHJdy3uNAeGVQFENuYRAAAABHRlc3QB
-----END OPENSSH PRIVATE KEY-----
)";
const char* const kPlainPub =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOFp+YHxSB/oK4smznhu8xmSbrHJdy3uNAeGVQFENuYR test\n";
const char* const kEncrypted = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABAgDY68JE
0mYMeez8oJ421XAAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIGbgWWks1/BxN1Xy
Y310TRW7Wd0Ma3s+c7ktM8194JePAAAAkPMkWWVToXADnXG4cpR+pX3i6rvD+qrTNkH/YF
1kpxrTRS69heWK1kcwRzdgqyqpQwiKf48UyVhmRSoZBVlK+8irB/RknyXFaIYSIZU0cFn6
/gaEtP+OVa/08B6+bFnLlVur0ZBJRnylFGdtbPmYG72liMAe+OPt1OKCrhpWOqVeKz4DC7
dIjDlr69DVKEIFfg==
-----END OPENSSH PRIVATE KEY-----
)";

TEST(SshIdentity, UnencryptedEd25519SignsVerifiably) {
  auto id = Identity::parse("k", kPlain, "");
  ASSERT_TRUE(id.ok()) << id.error();
  const Identity& k = **id;
  EXPECT_FALSE(k.encrypted());
  ASSERT_TRUE(k.can_sign());
  ASSERT_EQ(k.public_blob().size(), 4u + 11 + 4 + 32);
  EXPECT_EQ(k.public_blob().substr(4, 11), "ssh-ed25519");

  const unsigned char data[] = "session id and request";
  std::string signature =
      k.sign(std::string_view(reinterpret_cast<const char*>(data), sizeof data));
  ASSERT_EQ(signature.size(), 64u);
  auto raw_pub = k.public_blob().substr(4 + 11 + 4);
  EVP_PKEY* pub = EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw_pub.data()), 32);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, pub), 1);
  EXPECT_EQ(EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(), data, sizeof data),
            1);
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(pub);
}

TEST(SshIdentity, PublicBlobAgreesWithPubFile) {
  auto with_pub = Identity::parse("k", kPlain, kPlainPub);
  auto without = Identity::parse("k", kPlain, "");
  ASSERT_TRUE(with_pub.ok() && without.ok());
  EXPECT_EQ((*with_pub)->public_blob(), (*without)->public_blob());
}

TEST(SshIdentity, EncryptedKeyIsRecognisedAndNotUsedToSign) {
  auto id = Identity::parse("k", kEncrypted, "");
  ASSERT_TRUE(id.ok()) << id.error();
  EXPECT_TRUE((*id)->encrypted());
  EXPECT_FALSE((*id)->can_sign());
  EXPECT_FALSE((*id)->public_blob().empty());  // known without the passphrase (for agents)
}

TEST(SshIdentity, PemKeysOpenSslCannotReadAreLeftToLibssh2) {
  auto id = Identity::parse(
      "k", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", "");
  ASSERT_TRUE(id.ok());
  EXPECT_FALSE((*id)->can_sign());
  EXPECT_FALSE((*id)->encrypted());
  auto locked = Identity::parse(
      "k",
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n-----END RSA PRIVATE KEY-----\n",
      "");
  EXPECT_TRUE((*locked)->encrypted());
}

TEST(SshIdentity, CorruptOpenSshKeyIsAnError) {
  EXPECT_FALSE(
      Identity::parse(
          "k", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n", "")
          .ok());
  EXPECT_FALSE(Identity::load("/nonexistent/pdx/key").ok());
  EXPECT_FALSE(Identity::load("/").ok());  // a directory is not a key file
}

TEST(SshIdentity, LoadReadsTheKeyAndItsPubFile) {
  test::TempDir dir;
  const std::string path = dir / "id_ed25519";
  std::ofstream(path) << kPlain;
  std::ofstream(path + ".pub") << kPlainPub;
  auto id = Identity::load(path);
  ASSERT_TRUE(id.ok()) << id.error();
  EXPECT_EQ((*id)->private_text(), kPlain);
  EXPECT_EQ((*id)->public_text(), kPlainPub);
  EXPECT_TRUE((*id)->can_sign());
}

TEST(SshIdentity, KeyTypeComesFromThePublicBlob) {
  EXPECT_EQ((*Identity::parse("k", kPlain, ""))->key_type(), "ssh-ed25519");
  EXPECT_EQ((*Identity::parse("k", kEncrypted, ""))->key_type(), "ssh-ed25519");
  // A PEM key: from its .pub file, else from the PEM header when that names RSA.
  const char* pem_rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n";
  EXPECT_EQ((*Identity::parse("k", pem_rsa, ""))->key_type(), "ssh-rsa");
  const char* pkcs8 = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
  EXPECT_EQ((*Identity::parse("k", pkcs8, ""))->key_type(), "");
  EXPECT_EQ((*Identity::parse("k", pkcs8, kPlainPub))->key_type(), "ssh-ed25519");
}

TEST(SshIdentity, RsaKeyTypes) {
  EXPECT_TRUE(is_rsa("ssh-rsa"));
  EXPECT_TRUE(is_rsa("ssh-rsa-cert-v01@openssh.com"));
  EXPECT_FALSE(is_rsa("ssh-ed25519"));
  EXPECT_FALSE(is_rsa("ecdsa-sha2-nistp256"));
  EXPECT_FALSE(is_rsa(""));
  EXPECT_EQ(key_type_of(std::string("\0\0\0\x07ssh-rsa\0\0\0\x01\x23", 16)), "ssh-rsa");
  EXPECT_EQ(key_type_of("\0\0\0\x09ssh"), "");  // length past the end
}

}  // namespace
}  // namespace pdx
