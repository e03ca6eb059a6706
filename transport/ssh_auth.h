#pragma once
// User authentication, in ssh's order: the agent (SSH_AUTH_SOCK), then identity files (-i,
// IdentityFile, else ~/.ssh/id_ed25519, id_ecdsa, id_rsa), then the --askpass password
// (password, keyboard-interactive). Identities are read once per run and shared by all hosts.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "transport/ssh_call.h"
#include "transport/ssh_identity.h"

namespace pdx {

/// What a run authenticates with. Shared by every session; thread-safe.
class Credentials {
 public:
  /// `password`: from --askpass, or empty. Never printed.
  explicit Credentials(std::string password) : password_(std::move(password)) {}
  /// The identity at `path`, read on its first use in the run. Error: unreadable or invalid.
  Result<std::shared_ptr<const Identity>> identity(const std::string& path);
  const std::string& password() const { return password_; }

 private:
  std::mutex mutex_;
  std::map<std::string, Result<std::shared_ptr<const Identity>>> identities_;
  std::string password_;
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

/// Prompts on /dev/tty, without echo, and reads one line (--askpass). Error: no terminal.
Result<std::string> prompt_password(const std::string& prompt);

}  // namespace pdx
