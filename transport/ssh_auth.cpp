#include "transport/ssh_auth.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "transport/ssh_wire.h"

namespace pdx {
namespace asio = boost::asio;

namespace {

// libssh2's sign callbacks (this one and sign_with_agent) hand it the signature blob (it adds
// the algorithm name) in *sig, malloc'ed because libssh2 frees it: 0, or -1 on failure. -1 too
// on any exception (out of memory), as none may unwind through libssh2's C frames.
int give_to_libssh2(std::string_view blob, unsigned char** sig, std::size_t* sig_size) {
  if (blob.empty()) return -1;
  *sig = static_cast<unsigned char*>(std::malloc(blob.size()));
  if (!*sig) return -1;
  std::memcpy(*sig, blob.data(), blob.size());
  *sig_size = blob.size();
  return 0;
}

int sign_with_identity(LIBSSH2_SESSION*, unsigned char** sig, std::size_t* sig_size,
                       const unsigned char* data, std::size_t size, void** abstract) try {
  std::string_view request(reinterpret_cast<const char*>(data), size);
  return give_to_libssh2(static_cast<const Identity*>(*abstract)->sign(request), sig, sig_size);
} catch (...) {
  return -1;
}

// ssh-agent, spoken to directly (draft-miller-ssh-agent) rather than through libssh2_agent_*:
// a libssh2 agent handle belongs to one session, so it would connect and list the keys once per
// host. Each request below is a blocking round trip on the agent's local socket, made on the
// calling thread: listing once per run from Credentials' constructor, signing once per host and
// key from libssh2's sign callback on that host's io thread (the agent answers in microseconds
// when local; a forwarded agent makes each host's sign as slow as that link).
constexpr unsigned char kAgentFailure = 5, kAgentRequestIdentities = 11,
                        kAgentIdentitiesAnswer = 12, kAgentSignRequest = 13,
                        kAgentSignResponse = 14;
constexpr std::uint32_t kAgentRsaSha2_256 = 2, kAgentRsaSha2_512 = 4;
constexpr std::uint32_t kAgentMaxReply = 256 * 1024;

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    auto n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool read_all(int fd, char* out, std::size_t size) {
  while (size > 0) {
    auto n = ::read(fd, out, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// Sends one request to the agent at `socket_path` and returns its reply (without the length);
/// empty when the agent cannot be reached or the reply is malformed.
std::string agent_exchange(const std::string& socket_path, std::string_view request) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path) return {};
  std::memcpy(address.sun_path, socket_path.data(), socket_path.size());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  std::string framed, reply;
  put_string(framed, request);
  char length[4];
  std::uint32_t size = 0;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      write_all(fd, framed) && read_all(fd, length, sizeof length) &&
      WireReader(std::string_view(length, sizeof length)).u32(size) && size > 0 &&
      size <= kAgentMaxReply) {
    reply.resize(size);
    if (!read_all(fd, reply.data(), size)) reply.clear();
  }
  ::close(fd);
  return reply;
}

/// The public key blobs the agent holds, in its order; none when it cannot be reached.
std::vector<std::string> agent_list_keys(const std::string& socket_path) {
  std::string reply =
      agent_exchange(socket_path, std::string(1, static_cast<char>(kAgentRequestIdentities)));
  WireReader r(reply);
  unsigned char type;
  std::uint32_t count;
  std::vector<std::string> keys;
  if (!r.byte(type) || type != kAgentIdentitiesAnswer || !r.u32(count)) return keys;
  std::string_view blob, comment;
  for (std::uint32_t i = 0; i < count && r.string(blob) && r.string(comment); ++i)
    keys.emplace_back(blob);
  return keys;
}

/// libssh2_userauth_publickey's abstract for an agent key.
struct AgentKey {
  const std::string* socket_path;
  const std::string* blob;
};

/// Asks the agent to sign (see give_to_libssh2); -1 when the agent refuses or is gone.
int sign_with_agent(LIBSSH2_SESSION*, unsigned char** sig, std::size_t* sig_size,
                    const unsigned char* data, std::size_t size, void** abstract) try {
  const auto& key = *static_cast<const AgentKey*>(*abstract);
  std::string_view to_sign(reinterpret_cast<const char*>(data), size);
  std::string_view algorithm = signed_algorithm(to_sign);
  std::uint32_t flags = algorithm == "rsa-sha2-256"   ? kAgentRsaSha2_256
                        : algorithm == "rsa-sha2-512" ? kAgentRsaSha2_512
                                                      : 0;
  std::string request(1, static_cast<char>(kAgentSignRequest));
  put_string(request, *key.blob);
  put_string(request, to_sign);
  put_u32(request, flags);
  std::string reply = agent_exchange(*key.socket_path, request);
  WireReader r(reply);
  unsigned char type = kAgentFailure;
  std::string_view signature, signed_with, raw;
  if (!r.byte(type) || type != kAgentSignResponse || !r.string(signature)) return -1;
  WireReader inner(signature);
  if (!inner.string(signed_with) || signed_with != algorithm || !inner.string(raw)) return -1;
  return give_to_libssh2(raw, sig, sig_size);
} catch (...) {
  return -1;
}

// keyboard-interactive: the --askpass password answers a round of exactly one prompt with echo
// off (a password prompt). Other rounds (a question shown in clear, several prompts such as a
// password and a one-time code) get empty answers, so the server refuses and that method ends. A
// round of zero prompts gets zero answers, as the protocol asks. libssh2 frees the answer (with
// the session allocator, unwiped).
void answer_with_password(const char*, int, const char*, int, int prompts,
                          const LIBSSH2_USERAUTH_KBDINT_PROMPT* questions,
                          LIBSSH2_USERAUTH_KBDINT_RESPONSE* responses, void** abstract) {
  if (prompts != 1 || questions[0].echo != 0) return;
  const auto& password = *static_cast<SessionContext*>(*abstract)->password;
  responses[0].text = static_cast<char*>(std::malloc(password.size() + 1));
  if (!responses[0].text) return;
  std::memcpy(responses[0].text, password.c_str(), password.size() + 1);
  responses[0].length = static_cast<unsigned int>(password.size());
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
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

/// The agent's keys, in its order (only those matching `only` when IdentitiesOnly is set);
/// "ssh-agent" is added to `tried` if one was offered. `sha1_rsa` is set when one of them was
/// an RSA key offered as ssh-rsa; `rsa_sha2`: see offered_blob().
asio::awaitable<long> try_agent(SshWaiter& w, const Credentials& credentials,
                                const AuthRequest& request,
                                const std::vector<std::shared_ptr<const Identity>>& only,
                                bool rsa_sha2, std::vector<std::string>& tried, bool& sha1_rsa) {
  long rc = LIBSSH2_ERROR_AUTHENTICATION_FAILED;
  bool first = true;
  for (const auto& blob : credentials.agent_keys()) {
    if (request.identities_only && std::none_of(only.begin(), only.end(), [&](const auto& id) {
          return id->public_blob() == blob;
        }))
      continue;
    if (std::exchange(first, false)) tried.push_back("ssh-agent");
    AgentKey key{&credentials.agent_socket(), &blob};  // the agent knows the key as it is
    void* abstract = &key;
    std::string offered = offered_blob(blob, rsa_sha2);
    if (is_rsa(key_type_of(offered))) sha1_rsa = true;
    rc = co_await ssh_call(w, [&] {
      return libssh2_userauth_publickey(w.session(), request.user.c_str(),
                                        reinterpret_cast<const unsigned char*>(offered.data()),
                                        offered.size(), sign_with_agent, &abstract);
    });
    if (settled(w, rc)) break;
  }
  co_return rc;
}

asio::awaitable<long> try_identity(SshWaiter& w, const std::string& user, const Identity& id,
                                   bool rsa_sha2) {
  if (id.can_sign()) {
    void* abstract = const_cast<Identity*>(&id);  // sign() is const; libssh2 wants a void*
    std::string blob = offered_blob(id.public_blob(), rsa_sha2);
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

/// The password, for each of the methods `password` and `keyboard-interactive` that the
/// server offers; each one tried is added to `tried`.
asio::awaitable<long> try_password(SshWaiter& w, const std::string& user,
                                   const std::string& password, const std::string& methods,
                                   std::vector<std::string>& tried) {
  long rc = LIBSSH2_ERROR_AUTHENTICATION_FAILED;
  if (offers(methods, "password")) {
    tried.push_back("password");
    rc = co_await ssh_call(w, [&] {
      return libssh2_userauth_password_ex(w.session(), user.data(),
                                          static_cast<unsigned>(user.size()), password.data(),
                                          static_cast<unsigned>(password.size()), nullptr);
    });
    if (settled(w, rc)) co_return rc;
  }
  if (offers(methods, "keyboard-interactive")) {
    tried.push_back("keyboard-interactive");
    w.context().password = &password;
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

/// The first libssh2 that signs with RSA using SHA-2 (rsa-sha2-256/512): 1.11.0.
constexpr int kLibssh2RsaSha2 = 0x010b00;

/// An OpenSSH server's version, read from its identification string
/// ("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10").
struct OpenSshVersion {
  int major = 0, minor = 0;
  std::string_view name;  // "OpenSSH_9.2p1"
};
std::optional<OpenSshVersion> openssh_version(std::string_view banner) {
  auto at = banner.find("-OpenSSH_");
  if (at == std::string_view::npos) return std::nullopt;
  OpenSshVersion v;
  v.name = banner.substr(at + 1);
  v.name = v.name.substr(0, v.name.find_first_of(" \r\n"));
  const char* end = v.name.data() + v.name.size();
  auto major = std::from_chars(v.name.data() + 8, end, v.major);  // after "OpenSSH_"
  if (major.ec != std::errc() || major.ptr == end || *major.ptr != '.') return std::nullopt;
  if (std::from_chars(major.ptr + 1, end, v.minor).ec != std::errc()) return std::nullopt;
  return v;
}

}  // namespace

bool rsa_sha2_in_key_type(bool libssh2_has_rsa_sha2, std::string_view banner) {
  auto openssh = openssh_version(banner);
  return !libssh2_has_rsa_sha2 && openssh &&
         std::pair{openssh->major, openssh->minor} >= std::pair{8, 8};
}

std::string offered_blob(const std::string& blob, bool rsa_sha2) {
  constexpr std::string_view kRsa = "ssh-rsa";
  if (!rsa_sha2 || key_type_of(blob) != kRsa) return blob;
  std::string out;
  put_string(out, "rsa-sha2-512");
  out.append(blob, 4 + kRsa.size());
  return out;
}

std::string rsa_refusal_hint(std::string_view libssh2_version, bool libssh2_has_rsa_sha2,
                             std::string_view banner) {
  if (libssh2_has_rsa_sha2) return {};
  auto openssh = openssh_version(banner);
  if (openssh && std::pair{openssh->major, openssh->minor} < std::pair{8, 8})
    return {};  // it accepts ssh-rsa by default
  std::string hint = "RSA keys: libssh2 " + std::string(libssh2_version) +
                     " signs only with ssh-rsa (SHA-1), which ";
  hint += openssh ? "this server (" + std::string(openssh->name) + ") refuses by default"
                  : std::string("OpenSSH 8.8 and later refuse by default");
  return hint + "; use an ed25519 or ecdsa key";
}

Credentials::Credentials(std::string password) : password_(std::move(password)) {
  if (const char* agent = std::getenv("SSH_AUTH_SOCK"); agent && *agent) {
    agent_socket_ = agent;
    agent_keys_ = agent_list_keys(agent_socket_);
  }
}

Credentials::~Credentials() {
  OPENSSL_cleanse(password_.data(), password_.capacity());
}

Result<std::shared_ptr<const Identity>> Credentials::identity(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = identities_.find(path);
  if (it == identities_.end()) it = identities_.emplace(path, Identity::load(path)).first;
  return it->second;
}

namespace {

// The methods the server accepts for `user`, asked with a "none" request. Nullopt with `done`
// set when that ends authentication: "none" itself was accepted (no failure) or the request
// failed.
asio::awaitable<std::optional<std::string>> list_methods(SshWaiter& w, const std::string& user,
                                                         std::optional<Step>& done) {
  long rc = 0;
  const char* list = co_await ssh_call_ptr(w, rc, [&] {
    return libssh2_userauth_list(w.session(), user.data(), static_cast<unsigned>(user.size()));
  });
  if (list) co_return std::string(list);  // copied: libssh2 reuses the buffer
  done = libssh2_userauth_authenticated(w.session()) ? Step{} : w.failure(rc, "authentication");
  co_return std::nullopt;
}

}  // namespace

asio::awaitable<Step> authenticate(SshWaiter& w, Credentials& credentials,
                                   const AuthRequest& request) {
  std::vector<std::string> tried, notes;
  bool sha1_rsa = false;  // an RSA key was offered as ssh-rsa (SHA-1)
  auto identities = usable_identities(credentials, request, notes);
  const char* banner = libssh2_session_banner_get(w.session());
  bool libssh2_rsa_sha2 = libssh2_version(kLibssh2RsaSha2) != nullptr;
  bool rsa_sha2 = rsa_sha2_in_key_type(libssh2_rsa_sha2, banner ? banner : "");
  // With a key to offer, it is offered before asking what the server accepts: a host that
  // takes it (the usual case) is spared the "none" request's round trip.
  bool have_key = !credentials.agent_socket().empty() ||
                  std::any_of(identities.begin(), identities.end(),
                              [](const auto& id) { return !id->encrypted(); });
  std::optional<std::string> methods;
  std::optional<Step> done;
  if (!have_key) {  // (co_await kept out of && and ||: GCC 12 evaluates it either way)
    methods = co_await list_methods(w, request.user, done);
    if (!methods) co_return *done;
  }
  if (!methods || offers(*methods, "publickey")) {
    if (!credentials.agent_socket().empty()) {
      auto rc = co_await try_agent(w, credentials, request, identities, rsa_sha2, tried, sha1_rsa);
      if (auto outcome = settled(w, rc)) co_return *outcome;
    }
    for (const auto& id : identities) {
      if (id->encrypted()) {
        notes.push_back("identity " + id->path() +
                        " is encrypted: load it into ssh-agent (ssh-add " + id->path() + ")");
        continue;
      }
      tried.push_back(id->path());
      // Offered as ssh-rsa: libssh2 signs a key pdx could not decode itself that way.
      if (is_rsa(id->key_type()) && (!id->can_sign() || !rsa_sha2)) sha1_rsa = true;
      if (auto outcome = settled(w, co_await try_identity(w, request.user, *id, rsa_sha2)))
        co_return *outcome;
    }
  }
  if (!methods) {
    methods = co_await list_methods(w, request.user, done);
    if (!methods) co_return *done;
  }
  if (!credentials.password().empty()) {
    auto rc = co_await try_password(w, request.user, credentials.password(), *methods, tried);
    if (auto outcome = settled(w, rc)) co_return *outcome;
  }
  if (sha1_rsa) {
    if (auto hint = rsa_refusal_hint(libssh2_version(0), libssh2_rsa_sha2, banner ? banner : "");
        !hint.empty())
      notes.push_back(hint);
  }
  std::string error = "permission denied for user " + request.user + " (server offers " + *methods +
                      "; tried " + (tried.empty() ? "nothing" : joined(tried, ", ")) + ")";
  if (!notes.empty()) error += "; " + joined(notes, "; ");
  co_return StepFailure{Failure::auth, error};
}

namespace {

// The terminal to put back when a signal ends the process at the password prompt. Set only
// while prompt_password() reads (before the run's threads start).
constexpr int kPromptSignals[] = {SIGINT, SIGTERM, SIGHUP};
int prompt_tty = -1;
termios prompt_saved{};
struct sigaction prompt_previous[std::size(kPromptSignals)];
volatile std::sig_atomic_t prompt_interrupted = 0;

void restore_prompt_signals() {
  for (std::size_t i = 0; i < std::size(kPromptSignals); ++i)
    ::sigaction(kPromptSignals[i], &prompt_previous[i], nullptr);
}

/// Async-signal-safe: restores echo and the previous handlers, then raises the signal again,
/// which takes its usual course (by default: the process ends) once this handler returns.
void restore_tty_and_reraise(int signal) {
  prompt_interrupted = 1;
  ::tcsetattr(prompt_tty, TCSAFLUSH, &prompt_saved);
  restore_prompt_signals();
  ::raise(signal);
}

/// Turns echo off on `fd` until restore_echo(); a signal in between restores it too.
bool silence_echo(int fd) {
  if (::tcgetattr(fd, &prompt_saved) != 0) return false;
  prompt_tty = fd;
  prompt_interrupted = 0;
  struct sigaction action {};
  action.sa_handler = restore_tty_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int signal : kPromptSignals) sigaddset(&action.sa_mask, signal);
  for (std::size_t i = 0; i < std::size(kPromptSignals); ++i) {
    ::sigaction(kPromptSignals[i], nullptr, &prompt_previous[i]);
    if (prompt_previous[i].sa_handler != SIG_IGN)  // an ignored signal stays ignored
      ::sigaction(kPromptSignals[i], &action, nullptr);
  }
  termios quiet = prompt_saved;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  ::tcsetattr(fd, TCSAFLUSH, &quiet);
  return true;
}

void restore_echo(int fd) {
  ::tcsetattr(fd, TCSAFLUSH, &prompt_saved);
  restore_prompt_signals();
  prompt_tty = -1;
}

}  // namespace

Result<std::string> prompt_password(const std::string& prompt) {
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) return Error{"--askpass needs a terminal (/dev/tty) to ask for the password"};
  bool silenced = silence_echo(fd);
  [[maybe_unused]] auto n = ::write(fd, prompt.data(), prompt.size());
  // One fixed buffer, wiped below: a growing string would leave partial copies in freed memory.
  char line[1024];
  std::size_t size = 0;
  bool complete = false, too_long = false;
  for (char c; !complete && !prompt_interrupted;) {
    auto got = ::read(fd, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (c == '\n')
      complete = true;
    else if (size < sizeof line - 1)
      line[size++] = c;
    else
      too_long = true;  // read on to the end of the line, so it is not left for the shell
  }
  if (silenced) restore_echo(fd);
  n = ::write(fd, "\n", 1);
  ::close(fd);
  Result<std::string> out = Error{"cannot read the password from /dev/tty"};
  if (prompt_interrupted)
    out = Error{"interrupted at the password prompt"};
  else if (too_long)
    out = Error{"the password is longer than " + std::to_string(sizeof line - 1) + " bytes"};
  else if (complete || size > 0)
    out = std::string(line, size);
  OPENSSL_cleanse(line, sizeof line);
  return out;
}

}  // namespace pdx
