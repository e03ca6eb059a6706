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

TEST(RsaSha2InKeyType, OpenSsh72AndLaterWithLibssh2Before111) {
  EXPECT_TRUE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"));
  EXPECT_TRUE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_7.2"));
  EXPECT_TRUE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_10.0"));
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_7.1p2"));  // before RFC 8332
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_6.6.1"));
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-dropbear_2022.83"));
  EXPECT_FALSE(rsa_sha2_in_key_type(false, "SSH-2.0-OpenSSH_x"));  // malformed
  EXPECT_FALSE(rsa_sha2_in_key_type(false, ""));
  EXPECT_FALSE(rsa_sha2_in_key_type(true, "SSH-2.0-OpenSSH_9.2p1"));  // libssh2 does it itself
}

TEST(RsaRefusalHint, NothingForOpenSshOrALibssh2ThatSignsWithSha2) {
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"), "");
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_7.4p1 Debian-10"), "");
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_6.6.1"), "");  // takes ssh-rsa
  EXPECT_EQ(rsa_refusal_hint("1.11.0", true, "SSH-2.0-dropbear_2022.83"), "");
}

TEST(RsaRefusalHint, OtherServersGetSha1AsTheLikelyReason) {
  const std::string hint =
      "RSA keys: libssh2 1.10.0 signs only with ssh-rsa (SHA-1) for servers other than OpenSSH, "
      "and many refuse it; use an ed25519 or ecdsa key";
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-dropbear_2022.83"), hint);
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, "SSH-2.0-OpenSSH_x"), hint);  // malformed
  EXPECT_EQ(rsa_refusal_hint("1.10.0", false, ""), hint);
}

}  // namespace
}  // namespace pdx
