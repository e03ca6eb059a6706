#include "transport/ssh_connection.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

constexpr const char* kDefaults =
    "curve25519-sha256,ecdh-sha2-nistp256,diffie-hellman-group14-sha1";

TEST(ApplyAlgorithmList, PlainListReplacesTheDefaults) {
  EXPECT_EQ(apply_algorithm_list(kDefaults, "aes256-ctr,aes128-ctr"), "aes256-ctr,aes128-ctr");
}

TEST(ApplyAlgorithmList, PlusAppendsWhatIsNotThereYet) {
  EXPECT_EQ(apply_algorithm_list(kDefaults, "+diffie-hellman-group1-sha1,curve25519-sha256"),
            "curve25519-sha256,ecdh-sha2-nistp256,diffie-hellman-group14-sha1,"
            "diffie-hellman-group1-sha1");
}

TEST(ApplyAlgorithmList, MinusRemovesMatchesWildcardsIncluded) {
  EXPECT_EQ(apply_algorithm_list(kDefaults, "-diffie-hellman-group14-sha1"),
            "curve25519-sha256,ecdh-sha2-nistp256");
  EXPECT_EQ(apply_algorithm_list(kDefaults, "-ecdh-*,diffie-hellman-group1?-sha1"),
            "curve25519-sha256");
  EXPECT_EQ(apply_algorithm_list(kDefaults, "-*"), "");
  EXPECT_EQ(apply_algorithm_list(kDefaults, "-unknown"), kDefaults);
}

TEST(ApplyAlgorithmList, CaretPutsThemFirstOnce) {
  EXPECT_EQ(apply_algorithm_list(kDefaults, "^diffie-hellman-group14-sha1,new-kex"),
            "diffie-hellman-group14-sha1,new-kex,curve25519-sha256,ecdh-sha2-nistp256");
}

TEST(ApplyAlgorithmList, EmptyNamesAreSkipped) {
  EXPECT_EQ(apply_algorithm_list(kDefaults, "-,ecdh-sha2-nistp256,"),
            "curve25519-sha256,diffie-hellman-group14-sha1");
  EXPECT_EQ(apply_algorithm_list("", "+a"), "a");
}

TEST(SupportedOnly, KeepsTheSupportedNamesInTheListsOrder) {
  EXPECT_EQ(supported_only("rsa-sha2-512,ssh-ed25519,x,ssh-rsa", "ssh-rsa,ssh-ed25519"),
            "ssh-ed25519,ssh-rsa");
  EXPECT_EQ(supported_only("x,y", "ssh-rsa"), "");
  EXPECT_EQ(supported_only("", "ssh-rsa"), "");
}

}  // namespace
}  // namespace pdx
