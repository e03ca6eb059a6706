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
/// identification string `banner` names OpenSSH 8.8 or later, which refuses ssh-rsa (SHA-1) by
/// default and, like every OpenSSH from 7.2 on, accepts that name. Older servers keep ssh-rsa,
/// which they accept, as do agents that know no SHA-2 flag.
bool rsa_sha2_in_key_type(bool libssh2_has_rsa_sha2, std::string_view banner);

/// The public key blob to offer: `blob`, or for a plain RSA key (not a certificate, whose
/// signature covers the type name) when `rsa_sha2` is set, the same key with "rsa-sha2-512" as
/// its type name. libssh2 before 1.11 names the signature algorithm after that type name.
std::string offered_blob(const std::string& blob, bool rsa_sha2);

/// The note added to an authentication failure after RSA keys were offered as ssh-rsa, or empty
/// when their signature cannot be why: libssh2 before 1.11 (`libssh2_has_rsa_sha2` false; version
/// `libssh2_version`, e.g. "1.10.0") signs with RSA only as ssh-rsa, with SHA-1, which OpenSSH
/// 8.8 and later refuse unless PubkeyAcceptedAlgorithms adds it. `banner`: the server's
/// identification string; an older OpenSSH accepts ssh-rsa, another server may or may not.
std::string rsa_refusal_hint(std::string_view libssh2_version, bool libssh2_has_rsa_sha2,
                             std::string_view banner);

/// Prompts on /dev/tty, without echo, and reads one line of up to 1023 bytes (--askpass).
/// SIGINT, SIGTERM or SIGHUP at the prompt restore the terminal, then take their usual course.
/// Error: no terminal, the line is too long, or the read failed.
Result<std::string> prompt_password(const std::string& prompt);

}  // namespace pdx
