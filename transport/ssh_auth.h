#pragma once
// User authentication, in ssh's order: the agent (SSH_AUTH_SOCK), then identity files (-i,
// IdentityFile, else ~/.ssh/id_ed25519, id_ecdsa, id_rsa), then the --askpass password
// (password, keyboard-interactive). Identities and the agent's key list are read once per run
// and shared by all hosts.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "transport/ssh_call.h"
#include "transport/ssh_identity.h"

namespace pdx {

/// What a run authenticates with. Shared by every session; thread-safe.
class Credentials {
 public:
  /// `password`: from --askpass, or empty. Never printed; wiped when the run ends. Connects to
  /// ssh-agent (SSH_AUTH_SOCK) once, on the calling thread, to list its keys.
  explicit Credentials(std::string password);
  ~Credentials();
  Credentials(const Credentials&) = delete;
  Credentials& operator=(const Credentials&) = delete;

  /// The identity at `path`, read on its first use in the run. Error: unreadable or invalid.
  Result<std::shared_ptr<const Identity>> identity(const std::string& path);
  const std::string& password() const { return password_; }
  /// SSH_AUTH_SOCK, or empty when there is no agent.
  const std::string& agent_socket() const { return agent_socket_; }
  /// The public key blobs the agent held at the start of the run, in its order.
  const std::vector<std::string>& agent_keys() const { return agent_keys_; }

 private:
  std::mutex mutex_;
  std::map<std::string, Result<std::shared_ptr<const Identity>>> identities_;
  std::string password_;
  std::string agent_socket_;
  std::vector<std::string> agent_keys_;
};

/// Who to authenticate as on one host, and with which keys.
struct AuthRequest {
  std::string user;
  std::vector<std::string> identity_files;  // expanded paths, in the order to try
  bool identities_only = false;             // agent keys only when they match these files
  bool explicit_identities = false;         // named by -i / IdentityFile: missing ones reported
};

/// Authenticates the session in `w`. Failure::auth with what was tried when nothing worked.
boost::asio::awaitable<Step> authenticate(SshWaiter& w, Credentials& credentials,
                                          const AuthRequest& request);

/// True when RSA keys are offered with "rsa-sha2-512" as their blob's type name, so that
/// libssh2 before 1.11 (`libssh2_has_rsa_sha2` false) signs with SHA-512: the server's
/// identification string `banner` names OpenSSH 7.2 or later, which accepts that (and from 8.8
/// on refuses ssh-rsa, SHA-1, by default).
bool rsa_sha2_in_key_type(bool libssh2_has_rsa_sha2, std::string_view banner);

/// The note added to an authentication failure after RSA keys were tried, or empty when their
/// signature cannot be why: libssh2 before 1.11 (`libssh2_has_rsa_sha2` false; version
/// `libssh2_version`, e.g. "1.10.0") signs with RSA only as ssh-rsa (SHA-1) on a server other
/// than OpenSSH (`banner`: its identification string), and many refuse that.
std::string rsa_refusal_hint(std::string_view libssh2_version, bool libssh2_has_rsa_sha2,
                             std::string_view banner);

/// Prompts on /dev/tty, without echo, and reads one line of up to 1023 bytes (--askpass).
/// SIGINT, SIGTERM or SIGHUP at the prompt restore the terminal, then take their usual course.
/// Error: no terminal, the line is too long, or the read failed.
Result<std::string> prompt_password(const std::string& prompt);

}  // namespace pdx
