#include "transport/ssh_auth.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace pdx {
namespace asio = boost::asio;

namespace {

int sign_with_identity(LIBSSH2_SESSION*, unsigned char** sig, std::size_t* sig_size,
                       const unsigned char* data, std::size_t size, void** abstract) {
  return static_cast<const Identity*>(*abstract)->sign(data, size, sig, sig_size);
}

// keyboard-interactive: every prompt gets the --askpass password. libssh2 frees the answers.
void answer_with_password(const char*, int, const char*, int, int prompts,
                          const LIBSSH2_USERAUTH_KBDINT_PROMPT*,
                          LIBSSH2_USERAUTH_KBDINT_RESPONSE* responses, void** abstract) {
  const auto& password = *static_cast<const std::string*>(*abstract);
  for (int i = 0; i < prompts; ++i) {
    responses[i].text = strdup(password.c_str());
    responses[i].length = static_cast<unsigned int>(password.size());
  }
}

bool offers(const std::string& methods, std::string_view method) {
  std::stringstream list(methods);
  for (std::string m; std::getline(list, m, ',');)
    if (m == method) return true;
  return false;
}

/// What an authentication attempt's status means for the ones after it: nullopt to go on with
/// the next method; a Step (success or a broken session) to stop.
std::optional<Step> settled(SshWaiter& w, long rc) {
  switch (rc) {
    case 0:
      return Step{};
    case kWaitAborted:
    case LIBSSH2_ERROR_SOCKET_SEND:
    case LIBSSH2_ERROR_SOCKET_RECV:
    case LIBSSH2_ERROR_SOCKET_DISCONNECT:
    case LIBSSH2_ERROR_SOCKET_TIMEOUT:
    case LIBSSH2_ERROR_TIMEOUT:
    case LIBSSH2_ERROR_PROTO:
      return Step{w.failure(rc, "authentication")};
    default:
      return std::nullopt;  // this key or password was not accepted
  }
}

/// The agent's keys, in its order (only those matching `only` when IdentitiesOnly is set).
asio::awaitable<long> try_agent(SshWaiter& w, const AuthRequest& request,
                                const std::vector<std::shared_ptr<const Identity>>& only) {
  long rc = LIBSSH2_ERROR_AUTHENTICATION_FAILED;
  LIBSSH2_AGENT* agent = libssh2_agent_init(w.session());
  if (!agent) co_return rc;
  // The agent's socket is local and blocking; only the server side of the exchange waits.
  if (libssh2_agent_connect(agent) == 0 && libssh2_agent_list_identities(agent) == 0) {
    libssh2_agent_publickey *key = nullptr, *previous = nullptr;
    while (libssh2_agent_get_identity(agent, &key, previous) == 0) {
      previous = key;
      std::string_view blob(reinterpret_cast<const char*>(key->blob), key->blob_len);
      if (request.identities_only && std::none_of(only.begin(), only.end(), [&](const auto& id) {
            return id->public_blob() == blob;
          }))
        continue;
      rc = co_await ssh_call(
          w, [&] { return libssh2_agent_userauth(agent, request.user.c_str(), key); });
      if (settled(w, rc)) break;
    }
    libssh2_agent_disconnect(agent);
  }
  libssh2_agent_free(agent);
  co_return rc;
}

asio::awaitable<long> try_identity(SshWaiter& w, const std::string& user, const Identity& id) {
  if (id.can_sign()) {
    void* abstract = const_cast<Identity*>(&id);  // sign() is const; libssh2 wants a void*
    const auto& blob = id.public_blob();
    co_return co_await ssh_call(w, [&] {
      return libssh2_userauth_publickey(w.session(), user.c_str(),
                                        reinterpret_cast<const unsigned char*>(blob.data()),
                                        blob.size(), sign_with_identity, &abstract);
    });
  }
  const auto& pub = id.public_text();
  const auto& key = id.private_text();
  co_return co_await ssh_call(w, [&] {
    return libssh2_userauth_publickey_frommemory(w.session(), user.data(), user.size(),
                                                 pub.empty() ? nullptr : pub.data(), pub.size(),
                                                 key.data(), key.size(), nullptr);
  });
}

asio::awaitable<long> try_password(SshWaiter& w, const std::string& user,
                                   const std::string& password, const std::string& methods) {
  long rc = LIBSSH2_ERROR_AUTHENTICATION_FAILED;
  if (offers(methods, "password")) {
    rc = co_await ssh_call(w, [&] {
      return libssh2_userauth_password_ex(w.session(), user.data(),
                                          static_cast<unsigned>(user.size()), password.data(),
                                          static_cast<unsigned>(password.size()), nullptr);
    });
    if (settled(w, rc)) co_return rc;
  }
  if (offers(methods, "keyboard-interactive")) {
    *libssh2_session_abstract(w.session()) = const_cast<std::string*>(&password);
    rc = co_await ssh_call(w, [&] {
      return libssh2_userauth_keyboard_interactive_ex(
          w.session(), user.data(), static_cast<unsigned>(user.size()), answer_with_password);
    });
  }
  co_return rc;
}

/// The identities to offer, read (once per run) through `credentials`; `notes` says why a
/// named one was left out.
std::vector<std::shared_ptr<const Identity>> usable_identities(Credentials& credentials,
                                                               const AuthRequest& request,
                                                               std::vector<std::string>& notes) {
  std::vector<std::shared_ptr<const Identity>> out;
  for (const auto& path : request.identity_files) {
    auto id = credentials.identity(path);
    if (id)
      out.push_back(*id);
    else if (request.explicit_identities)
      notes.push_back(id.error());
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<const Identity>> Credentials::identity(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = identities_.find(path);
  if (it == identities_.end()) it = identities_.emplace(path, Identity::load(path)).first;
  return it->second;
}

asio::awaitable<Step> authenticate(SshWaiter& w, Credentials& credentials,
                                   const AuthRequest& request) {
  long rc = 0;
  const char* list = co_await ssh_call_ptr(w, rc, [&] {
    return libssh2_userauth_list(w.session(), request.user.data(),
                                 static_cast<unsigned>(request.user.size()));
  });
  if (!list) {
    if (libssh2_userauth_authenticated(w.session())) co_return Step{};  // "none" was accepted
    co_return w.failure(rc, "authentication");
  }
  const std::string methods = list;  // libssh2 reuses the buffer
  std::vector<std::string> tried, notes;
  auto identities = usable_identities(credentials, request, notes);
  if (offers(methods, "publickey")) {
    if (std::getenv("SSH_AUTH_SOCK")) {
      tried.push_back("ssh-agent");
      if (auto done = settled(w, co_await try_agent(w, request, identities))) co_return *done;
    }
    for (const auto& id : identities) {
      if (id->encrypted()) {
        notes.push_back("identity " + id->path() +
                        " is encrypted: load it into ssh-agent (ssh-add " + id->path() + ")");
        continue;
      }
      tried.push_back(id->path());
      if (auto done = settled(w, co_await try_identity(w, request.user, *id))) co_return *done;
    }
  }
  if (!credentials.password().empty()) {
    tried.push_back("password");
    auto rc = co_await try_password(w, request.user, credentials.password(), methods);
    if (auto done = settled(w, rc)) co_return *done;
  }
  std::string error = "permission denied for user " + request.user + " (server offers " + methods +
                      "; tried " + (tried.empty() ? "nothing" : "");
  for (std::size_t i = 0; i < tried.size(); ++i) error += (i ? ", " : "") + tried[i];
  error += ")";
  for (const auto& note : notes) error += "; " + note;
  co_return StepFailure{Failure::auth, error};
}

Result<std::string> prompt_password(const std::string& prompt) {
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) return Error{"--askpass needs a terminal (/dev/tty) to ask for the password"};
  termios saved{};
  bool restore = ::tcgetattr(fd, &saved) == 0;
  if (restore) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(fd, TCSAFLUSH, &quiet);
  }
  [[maybe_unused]] auto n = ::write(fd, prompt.data(), prompt.size());
  std::string password;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') password += c;
  if (restore) ::tcsetattr(fd, TCSAFLUSH, &saved);
  n = ::write(fd, "\n", 1);
  ::close(fd);
  return password;
}

}  // namespace pdx
