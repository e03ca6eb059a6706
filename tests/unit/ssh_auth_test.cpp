#include "transport/ssh_auth.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "transport/ssh_wire.h"

namespace pdx {
namespace {

/// SSH_AUTH_SOCK set to `value` (unset when null) for one test.
class AgentEnv {
 public:
  explicit AgentEnv(const char* value) {
    if (const char* old = std::getenv("SSH_AUTH_SOCK")) {
      saved_ = old;
      had_ = true;
    }
    if (value)
      ::setenv("SSH_AUTH_SOCK", value, 1);
    else
      ::unsetenv("SSH_AUTH_SOCK");
  }
  ~AgentEnv() {
    if (had_)
      ::setenv("SSH_AUTH_SOCK", saved_.c_str(), 1);
    else
      ::unsetenv("SSH_AUTH_SOCK");
  }

 private:
  std::string saved_;
  bool had_ = false;
};

/// An agent on a socket in a fresh directory that answers one request with `reply`, and keeps
/// what it was asked.
class FakeAgent {
 public:
  explicit FakeAgent(std::string reply) {
    char dir[] = "/tmp/pdx-agent-test.XXXXXX";
    dir_ = ::mkdtemp(dir);
    path_ = dir_ + "/agent.sock";
    listener_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listener_, 1), 0);
    thread_ = std::thread([this, reply = std::move(reply)] {
      int fd = ::accept(listener_, nullptr, nullptr);
      char buffer[4096];
      auto n = ::read(fd, buffer, sizeof buffer);
      if (n > 4) request_.assign(buffer + 4, static_cast<std::size_t>(n) - 4);
      std::string framed;
      put_string(framed, reply);
      EXPECT_EQ(::write(fd, framed.data(), framed.size()), static_cast<ssize_t>(framed.size()));
      ::close(fd);
    });
  }
  ~FakeAgent() {
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }
  /// The request it received (without its length); call after the exchange.
  const std::string& request() {
    thread_.join();
    return request_;
  }

 private:
  std::string dir_, path_, request_;
  int listener_ = -1;
  std::thread thread_;
};

TEST(Credentials, ListsTheAgentKeysOnce) {
  std::string reply(1, '\x0c');  // SSH_AGENT_IDENTITIES_ANSWER
  put_u32(reply, 2);
  put_string(reply, "blob-one");
  put_string(reply, "comment one");
  put_string(reply, "blob-two");
  put_string(reply, "");
  FakeAgent agent(reply);
  AgentEnv env(agent.path().c_str());
  Credentials credentials("");
  EXPECT_EQ(agent.request(), std::string(1, '\x0b'));  // SSH_AGENTC_REQUEST_IDENTITIES
  EXPECT_EQ(credentials.agent_socket(), agent.path());
  EXPECT_EQ(credentials.agent_keys(), (std::vector<std::string>{"blob-one", "blob-two"}));
}

TEST(Credentials, AgentFailureMeansNoKeys) {
  FakeAgent agent(std::string(1, '\x05'));  // SSH_AGENT_FAILURE
  AgentEnv env(agent.path().c_str());
  Credentials credentials("");
  EXPECT_TRUE(credentials.agent_keys().empty());
}

TEST(Credentials, AgentThatIsGoneMeansNoKeys) {
  AgentEnv env("/nonexistent/pdx-agent.sock");
  Credentials credentials("");
  EXPECT_EQ(credentials.agent_socket(), "/nonexistent/pdx-agent.sock");
  EXPECT_TRUE(credentials.agent_keys().empty());
}

TEST(Credentials, NoAgent) {
  AgentEnv env(nullptr);
  Credentials credentials("secret");
  EXPECT_TRUE(credentials.agent_socket().empty());
  EXPECT_TRUE(credentials.agent_keys().empty());
  EXPECT_EQ(credentials.password(), "secret");
}

TEST(RsaSha2InKeyType, OpenSsh88AndLaterWithLibssh2Before111) {
  EXPECT_TRUE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"));
  EXPECT_TRUE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_8.8"));
  EXPECT_TRUE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_10.0"));
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_8.7"));  // accepts ssh-rsa
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_7.4p1 Debian-10"));
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-dropbear_2022.83"));
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_x"));  // malformed
  EXPECT_FALSE(rsa_sha2_in_key_type(false, ""));
  EXPECT_FALSE(rsa_sha2_in_key_type(true, "SSH-2.0-OpenSSH_9.2p1"));  // libssh2 does it itself
}

std::string blob(std::string_view type, std::string_view rest) {
  std::string out;
  put_string(out, type);
  return out + std::string(rest);
}

TEST(OfferedBlob, PlainRsaKeysAreOfferedAsRsaSha2_512) {
  const std::string numbers("\0\0\0\x01\x03\0\0\0\x02\x01\x01", 11);  // e, n
  EXPECT_EQ(offered_blob(blob("ssh-rsa", numbers), true), blob("rsa-sha2-512", numbers));
  EXPECT_EQ(offered_blob(blob("ssh-rsa", numbers), false), blob("ssh-rsa", numbers));
  // A certificate's CA signature covers its type name; other key types have one algorithm.
  for (auto type : {"ssh-rsa-cert-v01@openssh.com", "ssh-ed25519", "ecdsa-sha2-nistp256"})
    EXPECT_EQ(offered_blob(blob(type, numbers), true), blob(type, numbers)) << type;
  EXPECT_EQ(offered_blob("", true), "");
}

TEST(RsaRefusalHint, NamesTheOpenSshServerThatRefusesSha1) {
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"),
            "RSA keys: libssh2 1.10.0 signs only with ssh-rsa (SHA-1), which this server "
            "(OpenSSH_9.2p1) refuses by default; use an ed25519 or ecdsa key");
  EXPECT_NE(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_8.8").find("(OpenSSH_8.8)"),
            std::string::npos);
  EXPECT_NE(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_10.0").find("(OpenSSH_10.0)"),
            std::string::npos);
}

TEST(RsaRefusalHint, SaysNothingWhenSha1CannotBeWhy) {
  EXPECT_EQ(rsa_refusal_hint("1.11.0", true, "SSH-2.0-OpenSSH_9.2p1"), "");
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_8.7"), "");  // accepts ssh-rsa
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_7.4p1 Debian-10"), "");
}

TEST(RsaRefusalHint, OtherServersGetTheGeneralRule) {
  const std::string general =
      "RSA keys: libssh2 1.10.0 signs only with ssh-rsa (SHA-1), which OpenSSH 8.8 and later "
      "refuse by default; use an ed25519 or ecdsa key";
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-dropbear_2022.83"), general);
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_x"), general);  // malformed
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, ""), general);
}

}  // namespace
}  // namespace pdx
