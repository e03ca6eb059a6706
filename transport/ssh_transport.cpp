// The ssh transport: reads ssh_config, the identities and the --askpass password once per run,
// then opens each host's session as an SshConnection (ssh_connection.cpp) on the strand it is
// given, and runs each exec on it as an SshChannel (ssh_channel.cpp).
#include <pwd.h>
#include <unistd.h>

#include <boost/asio/this_coro.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "base/error.h"
#include "base/open_files.h"
#include "transport/ssh_channel.h"
#include "transport/ssh_config.h"
#include "transport/ssh_options.h"

namespace pdx {
namespace asio = boost::asio;

namespace {

// Without -t or ssh_config ConnectTimeout, as pdsh: a host that does not answer is given up on.
constexpr std::chrono::milliseconds kDefaultConnectTimeout{10000};

// The window's ceiling (ssh_gate.h). At 512 loopback hosts 32..1000 all took the same
// wall time (sshd's CPU is the limit) while pdx's RSS went from 16 to 41 MiB; 96 in flight
// still set up thousands of hosts a second on a LAN. (128 measured the same wall and CPU, and
// 3-5 MiB more once held packets were sent at the end of a round, ssh_call.cpp.)
constexpr std::size_t kSetupLimit = 96;

// Descriptors left to the rest of the run (the event loop's, identity and known_hosts files
// while read, output files) out of the limit on open files; the sessions share the others.
constexpr std::size_t kReservedDescriptors = 16;

// ssh(1)'s order. libssh2's own puts ECDSA first, and a known_hosts written by ssh usually
// holds the ed25519 key: the host would look unknown though its key is known.
constexpr const char* kHostKeyOrder =
    "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,rsa-sha2-512,"
    "rsa-sha2-256,ssh-rsa";

/// A UserKnownHostsFile or GlobalKnownHostsFile list, expanded; `none` entries dropped.
std::vector<std::string> expand_files(const std::vector<std::string>& files,
                                      const std::vector<std::string>& defaults,
                                      const TokenValues& tokens) {
  std::vector<std::string> out;
  for (const auto& file : files.empty() ? defaults : files)
    if (file != "none") out.push_back(expand_tokens(file, tokens));
  return out;
}

struct LocalUser {
  std::string name, home;
};

LocalUser local_user() {
  const passwd* pw = ::getpwuid(::getuid());
  const char* home = std::getenv("HOME");
  return LocalUser{pw ? pw->pw_name : "", home ? home : pw ? pw->pw_dir : ""};
}

/// What the sessions may hold (ssh_gate.h): the limit on open files less those open now and the
/// reserve. A limit that leaves too few for one session is the run's failure, said once.
std::size_t session_descriptors() {
  std::size_t limit = open_file_limit(), open = open_file_count() + kReservedDescriptors;
  if (limit < open + SetupGate::kSettingUp)
    throw FatalError("the limit on open files (ulimit -n " + std::to_string(limit) +
                     ") leaves none for ssh sessions: Too many open files");
  return limit - open;
}

/// libssh2_init is not thread-safe: once per process, before any session.
void init_libssh2() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (libssh2_init(0) != 0) throw FatalError("cannot initialise libssh2");
  });
}

SshConfig read_config(const SshOptions& options, const LocalUser& me) {
  SshConfig config;
  for (const auto& option : options.options)
    if (auto ok = config.add_option(option); !ok) throw UsageError(ok.error());
  auto add = [&](const std::string& path, bool user_file) {
    if (auto ok = config.add_file(path, user_file); !ok) throw UsageError(ok.error());
  };
  if (!options.config_file.empty()) {
    if (::access(options.config_file.c_str(), R_OK) != 0)
      throw UsageError("cannot read ssh config " + options.config_file + ": " +
                       std::strerror(errno));
    add(options.config_file, true);  // -F replaces both files, as in ssh
  } else {
    add(me.home + "/.ssh/config", true);
    add("/etc/ssh/ssh_config", false);
  }
  return config;
}

// The Session seam over a connection, which its timers' handlers may keep alive a little longer.
class SshSession final : public Session {
 public:
  SshSession(std::shared_ptr<SshConnection> connection, std::size_t index)
      : connection_(std::move(connection)), index_(index) {}
  ~SshSession() override { connection_->close(); }  // now, not when the last handler lets go

  asio::awaitable<HostResult> exec(const ExecRequest& request, JobIo& io,
                                   StopSignal& stop) override {
    auto channel = std::make_shared<SshChannel>(connection_, index_, request, io);
    co_return co_await channel->run(stop);
  }

 private:
  std::shared_ptr<SshConnection> connection_;
  std::size_t index_;
};

class SshTransport final : public Transport {
 public:
  explicit SshTransport(const SshOptions& options)
      : options_(options),
        me_(local_user()),
        config_(read_config(options, me_)),
        credentials_(options.askpass ? ask_password() : std::string()) {
    // A -i file that cannot be used is a mistake on the command line, not a host's failure.
    for (const auto& file : options_.identity_files)
      if (auto id = credentials_.identity(
              expand_tokens(file, TokenValues{me_.home, me_.name, "", "", "", 22}));
          !id)
        throw UsageError(id.error());
  }

  asio::awaitable<Opened> open(const Job& job, StopSignal& stop) override {
    auto strand = co_await asio::this_coro::executor;
    auto connection = std::make_shared<SshConnection>(plan(job), credentials_, gate_, strand);
    if (Step failed = co_await connection->open(stop)) {
      connection->close();
      HostResult result;
      result.failure = failed->failure;
      result.error = std::move(failed->error);
      co_return Opened{nullptr, std::move(result)};
    }
    co_return Opened{std::make_unique<SshSession>(std::move(connection), job.index), {}};
  }

 private:
  static std::string ask_password() {
    auto password = prompt_password("pdx: password for all hosts: ");
    if (!password) throw UsageError(password.error());
    return std::move(*password);  // a copy would leave the secret in freed memory
  }

  /// Command line over ssh_config over defaults, as ssh(1) resolves them.
  HostPlan plan(const Job& job) {
    const Endpoint& at = job.endpoint;
    HostConfig c = config_.lookup(at.host);
    HostPlan p;
    p.hostname = c.hostname;  // lower case, as ssh(1) looks it up in known_hosts
    p.port = at.port ? at.port : options_.port ? options_.port : c.port ? c.port : 22;
    p.auth.user = !at.user.empty()         ? at.user
                  : !options_.user.empty() ? options_.user
                  : !c.user.empty()        ? c.user
                                           : me_.name;
    TokenValues tokens{me_.home, me_.name, p.hostname, p.auth.user, at.host, p.port};
    std::vector<std::string> named = options_.identity_files;
    named.insert(named.end(), c.identity_files.begin(), c.identity_files.end());
    p.auth.explicit_identities = !named.empty();
    if (named.empty()) named = {"~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa"};
    for (const auto& file : named) p.auth.identity_files.push_back(expand_tokens(file, tokens));
    p.auth.identities_only = c.identities_only;
    p.policy = parse_host_key_policy(c.strict_host_key_checking);
    p.hash_names = c.hash_known_hosts ? HashNames::yes : HashNames::no;
    p.known_hosts = known_hosts(c, tokens);
    p.connect_timeout = job.connect_timeout             ? *job.connect_timeout
                        : c.connect_timeout.count() > 0 ? c.connect_timeout
                                                        : kDefaultConnectTimeout;
    p.kex_algorithms = c.kex_algorithms;
    p.host_key_algorithms =
        !c.host_key_algorithms.empty()
            ? c.host_key_algorithms
            : prefer_known_types(kHostKeyOrder, p.known_hosts->known_types(p.hostname, p.port));
    p.ciphers = c.ciphers;
    p.macs = c.macs;
    return p;
  }

  /// The known_hosts files for a host, each set read once per run and shared. New keys go to
  /// the first user file only: none with `UserKnownHostsFile none`.
  std::shared_ptr<KnownHosts> known_hosts(const HostConfig& c, const TokenValues& tokens) {
    auto user = expand_files(c.user_known_hosts_files,
                             {"~/.ssh/known_hosts", "~/.ssh/known_hosts2"}, tokens);
    auto global = expand_files(c.global_known_hosts_files,
                               {"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}, tokens);
    std::string key;
    for (const auto& list : {user, global}) {
      for (const auto& file : list) key += file + '\n';
      key += '\n';  // where the user files end
    }
    std::lock_guard lock(mutex_);
    auto& shared = known_hosts_[key];
    if (!shared) shared = std::make_shared<KnownHosts>(std::move(user), std::move(global));
    return shared;
  }

  SshOptions options_;
  LocalUser me_;
  SshConfig config_;
  Credentials credentials_;
  SetupGate gate_{kSetupLimit, session_descriptors()};
  std::mutex mutex_;  // guards known_hosts_: plan() runs on every strand
  std::map<std::string, std::shared_ptr<KnownHosts>> known_hosts_;
};

}  // namespace

std::unique_ptr<Transport> make_ssh_transport(const SshOptions& options) {
  init_libssh2();
  return std::make_unique<SshTransport>(options);
}

}  // namespace pdx
