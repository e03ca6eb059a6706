#pragma once
// One host's ssh session: connect, handshake, host key, authentication, exec, stream output,
// exit status, close; written top to bottom as a coroutine on the host's strand.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "transport/known_hosts.h"
#include "transport/ssh_auth.h"
#include "transport/ssh_call.h"

namespace pdx {

/// Everything the session needs to know about its host, worked out from the command line and
/// ssh_config before it starts (ssh_transport.cpp).
struct HostPlan {
  std::string hostname;  // to connect to, and the name looked up in known_hosts
  int port = 22;
  AuthRequest auth;
  HostKeyPolicy policy = HostKeyPolicy::strict;
  std::shared_ptr<KnownHosts> known_hosts;
  std::chrono::milliseconds connect_timeout{0};                    // 0: none
  std::string kex_algorithms, host_key_algorithms, ciphers, macs;  // empty: libssh2's
};

class HostSession : public std::enable_shared_from_this<HostSession> {
 public:
  HostSession(HostPlan plan, const Job& job, JobIo& io, Credentials& credentials,
              boost::asio::any_io_executor strand);
  ~HostSession();
  HostSession(const HostSession&) = delete;
  HostSession& operator=(const HostSession&) = delete;

  /// Runs the job to its end. Call once, on the strand given to the constructor.
  boost::asio::awaitable<HostResult> run(StopSignal& stop);

 private:
  boost::asio::awaitable<Step> connect();
  boost::asio::awaitable<Step> handshake();
  Step verify_host_key();
  boost::asio::awaitable<Step> exec();
  boost::asio::awaitable<Step> stream();
  long deliver(Stream stream, bool& more);
  boost::asio::awaitable<Step> collect_exit(HostResult& result);
  void arm_deadline(std::chrono::milliseconds after, Failure failure, const char* what);
  void abort(Failure failure, std::string error);
  void close();

  HostPlan plan_;
  const Job& job_;
  JobIo& io_;
  Credentials& credentials_;
  SshWaiter waiter_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer deadline_;
  unsigned deadline_generation_ = 0;  // a deadline that fired for an earlier phase is ignored
  LIBSSH2_SESSION* session_ = nullptr;
  LIBSSH2_CHANNEL* channel_ = nullptr;
  bool handshaken_ = false;
};

/// "10s", "1.5s": how a timeout is named in errors.
std::string format_seconds(std::chrono::milliseconds d);

}  // namespace pdx
