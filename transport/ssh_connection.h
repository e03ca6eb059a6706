#pragma once
// One host's ssh connection: gate, connect, handshake, host key, authentication, close; set up
// top to bottom as a coroutine on the host's strand, then used by its channels
// (transport/ssh_channel.h), one after the other.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "transport/known_hosts.h"
#include "transport/ssh_auth.h"
#include "transport/ssh_call.h"
#include "transport/ssh_gate.h"
#include "transport/ssh_route.h"

namespace pdx {

/// Everything the connection needs to know about its host, worked out from the command line and
/// ssh_config before it starts (ssh_transport.cpp).
struct HostPlan {
  std::string hostname;  // to connect to, and the name looked up in known_hosts
  int port = 22;
  AuthRequest auth;
  HostKeyPolicy policy = HostKeyPolicy::strict;
  HashNames hash_names = HashNames::no;  // how an accepted key's host is recorded
  std::shared_ptr<KnownHosts> known_hosts;
  std::chrono::milliseconds connect_timeout{0};                    // 0: none
  std::string kex_algorithms, host_key_algorithms, ciphers, macs;  // empty: libssh2's
  KeepAlive keepalive;           // ServerAliveInterval and ServerAliveCountMax
  std::shared_ptr<Route> route;  // null: a TCP connection of its own
  std::string alias, label;      // the host as given (%n), and as pdx names it in output
};

class SshConnection : public std::enable_shared_from_this<SshConnection> {
 public:
  SshConnection(HostPlan plan, Credentials& credentials, SetupGate& gate,
                boost::asio::any_io_executor strand);
  ~SshConnection();
  SshConnection(const SshConnection&) = delete;
  SshConnection& operator=(const SshConnection&) = delete;

  /// Connects and authenticates. Call once, on the strand given to the constructor; everything
  /// else is called there too.
  boost::asio::awaitable<Step> open(StopSignal& stop);
  /// Ends the connection at once (see the .cpp); the destructor does it too. Idempotent.
  void close();

  // For the channels.
  SshWaiter& waiter() { return waiter_; }
  boost::asio::any_io_executor strand() { return deadline_.get_executor(); }
  /// Ctrl-C on `stop` aborts the connection's waits (registered once per StopSignal).
  void abort_on(StopSignal& stop);
  /// Ends the wait in progress and every later one: the step reports `failure`.
  void abort(Failure failure, std::string error);
  /// Aborts with `failure` ("WHAT timed out after N s") in `after`, replacing the deadline
  /// armed before; 0: none.
  void arm_deadline(std::chrono::milliseconds after, Failure failure, const char* what);
  /// The failure that spent the connection (set up failed, or a channel did): nothing more runs.
  const Step& spent() const { return spent_; }
  void spend(StepFailure failure) { spent_ = std::move(failure); }
  /// The failure of a hop on the host's route that ended the connection, if one did.
  std::optional<StepFailure> hop_failure() const {
    return conduit_ ? conduit_->hop_failure() : std::nullopt;
  }
  /// The host's name, as known_hosts and a route know it.
  const HostPlan& plan() const { return plan_; }

 private:
  boost::asio::awaitable<Step> enter_gate();
  void leave_gate();
  boost::asio::awaitable<Step> connect();
  boost::asio::awaitable<Step> reach_hops();
  boost::asio::awaitable<Step> dial();
  /// Starts `start` with a callback that may be called from any thread, and waits on the
  /// strand for its value; nullopt if aborted first.
  template <class T, class Start>
  boost::asio::awaitable<std::optional<T>> wait_for(Start start);
  boost::asio::awaitable<Step> handshake();
  Step verify_host_key();

  HostPlan plan_;
  StopSignal* stop_ = nullptr;  // the last one registered to abort the connection
  Step spent_;
  Credentials& credentials_;
  SetupGate& gate_;
  bool holds_slot_ = false;         // admitted by gate_, not yet set up
  bool holds_descriptors_ = false;  // admitted by gate_, not yet closed
  bool finished_ = false;           // close() ran: a slot handed over now is passed on
  SshWaiter waiter_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer deadline_;
  boost::asio::steady_timer admission_;  // waited on while queued at gate_
  unsigned deadline_generation_ = 0;     // a deadline that fired for an earlier phase is ignored
  LIBSSH2_SESSION* session_ = nullptr;
  bool handshaken_ = false;
  std::shared_ptr<Conduit> conduit_;  // what feeds the socket when the route is not TCP
};

/// An ssh_config algorithm list (KexAlgorithms, HostKeyAlgorithms, Ciphers, MACs) applied to
/// `defaults` (comma-separated, in order of preference) as ssh(1) does: "+a,b" appends those not
/// there yet, "-a,b*" removes those matching (`*` and `?` as in Host patterns), "^a,b" puts them
/// first; a list without a prefix replaces the defaults.
std::string apply_algorithm_list(std::string_view defaults, std::string_view list);

/// The names of `list` that are in `supported`, in `list`'s order (both comma-separated).
/// libssh2 1.10 drops the others itself, but with an overlapping memcpy.
std::string supported_only(std::string_view list, std::string_view supported);

}  // namespace pdx
