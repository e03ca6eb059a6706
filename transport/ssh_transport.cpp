// The ssh transport: reads ssh_config, the identities and the --askpass password once per run,
// then opens each host's session as an SshConnection (ssh_connection.cpp) on the strand it is
// given, and runs each exec on it as an SshChannel (ssh_channel.cpp).
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/this_coro.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "base/error.h"
#include "base/open_files.h"
#include "transport/mux_transport.h"
#include "transport/proxy_command.h"
#include "transport/ssh_channel.h"
#include "transport/ssh_config.h"
#include "transport/ssh_jump.h"
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

// Jump hosts' connections setting up at once, and the descriptors they may hold.
constexpr std::size_t kJumpSetupLimit = 16, kJumpDescriptors = 64;

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

/// The -o options (`with_options`) and the ssh_config files.
SshConfig read_config(const SshOptions& options, const LocalUser& me, bool with_options = true) {
  SshConfig config;
  if (with_options && !options.jump_hosts.empty())  // first: it wins, as ssh's -J
    if (auto ok = config.add_option("ProxyJump=" + options.jump_hosts); !ok)
      throw UsageError("-J: " + ok.error());
  for (const auto& option : with_options ? options.options : std::vector<std::string>{})
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
    HostResult result = co_await channel->run(stop);
    if (auto hop = connection_->hop_failure(); hop && result.failure != Failure::none) {
      result.failure = hop->failure;  // a jump host lost: it is named, not the host
      result.error = hop->error;
    }
    co_return result;
  }
  bool reached_over_tcp() const override { return !connection_->plan().route; }
  KeepAlive keepalive() const override { return connection_->plan().keepalive; }
  asio::awaitable<bool> answers(std::chrono::milliseconds limit) override {
    Step failed = co_await answer_round_trip(connection_, limit);
    co_return !failed;
  }

  bool alive() const override {
    if (connection_->spent()) return false;
    pollfd p{connection_->waiter().socket().native_handle(), POLLIN | POLLRDHUP, 0};
    if (p.fd < 0 || ::poll(&p, 1, 0) < 0) return false;
    if (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) return false;
    char byte;  // readable while idle: a message for libssh2, or the end of the connection
    return !(p.revents & POLLIN) || ::recv(p.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
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
        jump_config_(read_config(options, me_, false)),
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
    auto connection =
        std::make_shared<SshConnection>(plan(job, strand), credentials_, gate_, strand);
    if (Step failed = co_await connection->open(stop)) {
      connection->close();
      HostResult result;
      result.failure = failed->failure;
      result.error = std::move(failed->error);
      co_return Opened{nullptr, std::move(result)};
    }
    co_return Opened{std::make_unique<SshSession>(std::move(connection), job.index), {}};
  }

  /// ssh_config as read for this run (-o over the files), and the local user: what the
  /// warm-connection settings are looked up in, not read again.
  const SshConfig& config() const { return config_; }
  const LocalUser& me() const { return me_; }

 private:
  static std::string ask_password() {
    auto password = prompt_password("pdx: password for all hosts: ");
    if (!password) throw UsageError(password.error());
    return std::move(*password);  // a copy would leave the secret in freed memory
  }

  /// Command line over ssh_config over defaults, as ssh(1) resolves them.
  HostPlan plan(const Job& job, const asio::any_io_executor& ex) {
    const Endpoint& at = job.endpoint;
    HostConfig c = config_.lookup(at.host);
    HostPlan p = plan_for(at.host, c,
                          Endpoint{at.host, !at.user.empty() ? at.user : options_.user,
                                   at.port ? at.port : options_.port},
                          options_.identity_files, job);
    p.label = job.label;
    p.route = route_for(at.host, c, job, ex, 0).route;
    return p;
  }

  struct KeyedRoute {
    std::shared_ptr<Route> route;
    std::string key;  // the same for the same hops, reached the same way
  };

  /// The route ssh_config `c` gives `host`: its ProxyCommand, or its ProxyJump hops.
  KeyedRoute route_for(const std::string& host, const HostConfig& c, const Job& job,
                       const asio::any_io_executor& ex, int depth) {
    if (!c.proxy_command.empty()) return {proxy_command_route(c.proxy_command), ""};
    if (c.proxy_jump.empty()) return {};
    auto hops = parse_jumps(c.proxy_jump);  // checked when the config was read
    if (!hops) throw std::runtime_error(hops.error());
    auto& last = hops->back();
    if (hops->size() == 1 && lower_case(last.host) == lower_case(host))
      return {};  // a jump host's own entry naming itself ("Host *" with ProxyJump): direct
    return hop_route(*hops, hops->size() - 1, job, ex, depth);
  }

  /// Hop `i` of `hops`, reached through the hops before it, or (the first) through its own
  /// ssh_config entry's route. One JumpHop per hop and route, shared by every host of the run.
  KeyedRoute hop_route(const std::vector<JumpSpec>& hops, std::size_t i, const Job& job,
                       const asio::any_io_executor& ex, int depth) {
    constexpr int kMaxHops = 8;
    if (depth + static_cast<int>(i) >= kMaxHops)
      throw std::runtime_error("ProxyJump: more than 8 hops (a loop in ssh_config?)");
    const JumpSpec& j = hops[i];
    HostConfig c = jump_config_.lookup(j.host);
    HostPlan p = plan_for(j.host, c, Endpoint{j.host, j.user, j.port}, {}, job);
    p.label = j.host;
    KeyedRoute before = i > 0 ? hop_route(hops, i - 1, job, ex, depth + 1)
                              : route_for(j.host, c, job, ex, depth + 1);
    p.route = before.route;
    std::string key =
        p.auth.user + "@" + p.hostname + ":" + std::to_string(p.port) + "<" + before.key + ">";
    if (!c.proxy_command.empty() && i == 0) key += "|" + c.proxy_command;
    std::lock_guard lock(mutex_);
    auto& hop = hops_[key + " in " +
                      std::to_string(reinterpret_cast<std::uintptr_t>(
                          &asio::query(ex, asio::execution::context)))];
    auto route = hop.lock();
    if (!route) {
      std::string name = j.user.empty() ? j.host : j.user + "@" + j.host;
      if (j.port) name += ":" + std::to_string(j.port);
      route = jump_route(name, std::move(p), credentials_, jump_gate_, ex);
      hop = route;
    }
    return {route, key};
  }

  /// The plan of `host` (a target or a jump host) from `given` (user and port said for it,
  /// empty: ssh_config's), the -i files `identities`, and ssh_config `c`.
  HostPlan plan_for(const std::string& host, const HostConfig& c, const Endpoint& given,
                    const std::vector<std::string>& identities, const Job& job) {
    HostPlan p;
    p.hostname = c.hostname;  // lower case, as ssh(1) looks it up in known_hosts
    p.alias = host;
    p.port = given.port ? given.port : c.port ? c.port : 22;
    p.auth.user = !given.user.empty() ? given.user : !c.user.empty() ? c.user : me_.name;
    TokenValues tokens{me_.home, me_.name, p.hostname, p.auth.user, host, p.port};
    std::vector<std::string> named = identities;
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
    p.keepalive = KeepAlive{c.server_alive_interval, c.server_alive_count_max};
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
  SshConfig jump_config_;  // for jump hosts: -o (and -J) are the targets', as in ssh(1)
  Credentials credentials_;
  // A host reached through a jump host or a ProxyCommand holds two descriptors where a TCP
  // connection holds one (the socketpair's other end, or the command's stderr): when the config
  // has either, every session counts for two.
  SetupGate gate_{kSetupLimit,
                  session_descriptors() /
                      (config_.mentions("proxyjump") || config_.mentions("proxycommand") ? 2 : 1)};
  // Jump hosts' connections: a gate of their own, or hosts holding every slot while they wait
  // for their jump host would keep it out.
  SetupGate jump_gate_{kJumpSetupLimit, kJumpDescriptors};
  std::mutex mutex_;  // guards known_hosts_ and hops_: plan() runs on every strand
  std::map<std::string, std::shared_ptr<KnownHosts>> known_hosts_;
  // Alive while a host's plan or a link's handler holds them: one run's hops, not the next's.
  std::map<std::string, std::weak_ptr<Route>> hops_;
};

/// The warm-connection settings of each host (mux_path.h), from `read` (ssh_config and -o as
/// read for the run); null if `if_mentioned` and they never mention ControlMaster.
ControlLookup control_lookup(const SshOptions& options, const SshConfig& read, const LocalUser& me,
                             bool if_mentioned) {
  if (if_mentioned && !read.mentions("controlmaster")) return nullptr;
  auto config = std::make_shared<SshConfig>(read);
  return [config, options, me](const Endpoint& at) {
    HostConfig c = config->lookup(at.host);
    ControlTarget t;
    const std::string& m = c.control_master;
    t.enabled = (m == "yes" || m == "auto" || m == "ask" || m == "autoask") &&
                c.control_persist.has_value() && lower_case(c.control_path) != "none";
    t.persist = c.control_persist.value_or(std::chrono::seconds(0));
    t.path = c.control_path.empty() ? kDefaultControlPath : c.control_path;
    t.hostname = c.hostname;
    t.port = at.port ? at.port : options.port ? options.port : c.port ? c.port : 22;
    t.user = !at.user.empty()        ? at.user
             : !options.user.empty() ? options.user
             : !c.user.empty()       ? c.user
                                     : me.name;
    t.alias = at.host;
    t.home = me.home;
    t.local_user = me.name;
    return t;
  };
}

}  // namespace

std::unique_ptr<Transport> make_ssh_transport(const SshOptions& options) {
  init_libssh2();
  auto direct = std::make_unique<SshTransport>(options);
  if (options.holder || options.askpass) return direct;  // a password is not handed on
  auto lookup = control_lookup(options, direct->config(), direct->me(), true);
  if (!lookup) return direct;
  return make_mux_transport(std::move(direct), std::move(lookup), options);
}

int run_control_command(const SshOptions& options, const std::vector<Endpoint>& hosts) {
  LocalUser me = local_user();
  return control_command(options.control_op, hosts,
                         control_lookup(options, read_config(options, me), me, false));
}

}  // namespace pdx
