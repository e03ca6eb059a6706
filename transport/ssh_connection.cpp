// One host's ssh connection, set up as a coroutine on the host's strand. Its states, top to
// bottom in open():
//
//   queued        wait for a slot in the gate's window, paced by how long setups take (ssh_gate.h)
//     |
//   connect       resolve, TCP connect                        -+
//     |                                                        |
//   handshake     key exchange; from here libssh2 owns the     |
//     |           socket's bytes                               |  connect deadline (-t)
//   host key      known_hosts + StrictHostKeyChecking;         |
//     |           refused: nothing runs                        |
//   authenticate  agent, identity files, --askpass password   -+  then the slot is given back
//     |
//   open          channels run on it one after the other (ssh_channel.cpp: exec, stream,
//     |           exit, kill), each under its own deadline
//     |
//   close         from any state, failed or not: disconnect, shut the socket down, free the
//                 channels left and the session; never waits
//
// A deadline or Ctrl-C (StopSignal) aborts the SshWaiter: the wait in progress ends with
// operation_aborted and the step reports the abort's Failure; a channel's kill and close() then
// run as always. A connection whose setup or channel failed is spent: later channels fail at
// once with that failure.
// Every handler runs on the host's strand, so the connection's state needs no lock.
#include "transport/ssh_connection.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "transport/seconds.h"
#include "transport/ssh_config.h"
#include "transport/ssh_wiping_session.h"

namespace pdx {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// libssh2's algorithms for `method`, in its order of preference, comma-separated.
std::string supported_algorithms(LIBSSH2_SESSION* session, int method) {
  const char** algorithms = nullptr;
  int count = libssh2_session_supported_algs(session, method, &algorithms);
  std::string joined;
  for (int i = 0; i < count; ++i) joined += (i ? "," : "") + std::string(algorithms[i]);
  if (count > 0) libssh2_free(session, algorithms);
  return joined;
}

std::vector<std::string> split_commas(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    auto comma = list.find(',');
    if (auto name = list.substr(0, comma); !name.empty()) names.emplace_back(name);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
  return names;
}

}  // namespace

std::string apply_algorithm_list(std::string_view defaults, std::string_view list) {
  char prefix = list.empty() ? '\0' : list.front();
  if (prefix != '+' && prefix != '-' && prefix != '^') return std::string(list);
  auto named = split_commas(list.substr(1));
  auto named_has = [&named](const std::string& name) {
    for (const auto& n : named)
      if (n == name) return true;
    return false;
  };
  std::vector<std::string> result;
  if (prefix == '^') result = named;
  for (auto& name : split_commas(defaults)) {
    bool keep = prefix == '-' ? !host_matches(name, named) : !named_has(name);
    if (keep || prefix == '+') result.push_back(std::move(name));
  }
  if (prefix == '+') {
    for (const auto& name : named)
      if (std::find(result.begin(), result.end(), name) == result.end()) result.push_back(name);
  }
  std::string joined;
  for (const auto& name : result) joined += (joined.empty() ? "" : ",") + name;
  return joined;
}

std::string supported_only(std::string_view list, std::string_view supported) {
  auto known = split_commas(supported);
  std::string kept;
  for (const auto& name : split_commas(list))
    if (std::find(known.begin(), known.end(), name) != known.end())
      kept += (kept.empty() ? "" : ",") + name;
  return kept;
}

SshConnection::SshConnection(HostPlan plan, Credentials& credentials, SetupGate& gate,
                             asio::any_io_executor strand)
    : plan_(std::move(plan)),
      credentials_(credentials),
      gate_(gate),
      waiter_(tcp::socket(strand)),
      resolver_(strand),
      deadline_(strand),
      admission_(strand) {}

SshConnection::~SshConnection() {
  close();
}

void SshConnection::abort_on(StopSignal& stop) {
  if (&stop == stop_) return;  // already registered
  stop_ = &stop;
  stop.on_stop([weak = weak_from_this(), strand = strand()] {
    asio::post(strand, [weak] {
      if (auto self = weak.lock()) self->abort(Failure::interrupted, "interrupted");
    });
  });
}

asio::awaitable<Step> SshConnection::open(StopSignal& stop) {
  abort_on(stop);
  Step failed = co_await enter_gate();
  if (!failed && plan_.route) failed = co_await reach_hops();
  auto started = gate_.now();  // the host's own setup, its jump hosts reached
  if (!failed) arm_deadline(plan_.connect_timeout, Failure::connect_timeout, "connect");
  if (!failed && plan_.route)
    failed = co_await dial();  // (GCC 12: no co_await in ?:)
  else if (!failed)
    failed = co_await connect();
  bool answered = !failed;
  if (!failed) failed = co_await handshake();
  if (!failed) failed = verify_host_key();
  if (!failed) failed = co_await authenticate(waiter_, credentials_, plan_.auth);
  // How fast the servers are: a setup, or a server that answered and then timed out.
  if (!failed || (answered && failed->failure == Failure::connect_timeout))
    gate_.paced(started, plan_.connect_timeout);
  leave_gate();
  arm_deadline(std::chrono::milliseconds(0), Failure::none, "");
  if (auto hop = hop_failure(); failed && hop) failed = hop;
  if (failed) spent_ = failed;
  co_return failed;
}

template <class T, class Start>
asio::awaitable<std::optional<T>> SshConnection::wait_for(Start start) {
  auto value = std::make_shared<std::optional<T>>();
  start([value, weak = weak_from_this(), strand = strand()](T got) {
    asio::post(strand, [value, weak, got = std::move(got)]() mutable {
      *value = std::move(got);
      if (auto self = weak.lock()) self->admission_.cancel();
    });
  });
  // The callback's handler runs on this strand, so not before this wait starts.
  if (!waiter_.aborted()) {
    admission_.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    co_await admission_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (waiter_.aborted()) co_return std::nullopt;  // a late value is dropped, closing its conduit
  co_return std::move(*value);
}

// The hops before the host, not under its deadline: a hop's failure is named by the hop.
asio::awaitable<Step> SshConnection::reach_hops() {
  auto gave_up = std::make_shared<std::atomic<bool>>(false);
  auto ready = co_await wait_for<Step>(
      [this, &gave_up](auto done) { plan_.route->reach(std::move(done), gave_up); });
  if (!ready) {
    *gave_up = true;  // a jump host still connecting need not go on for this one
    co_return waiter_.failure(kWaitAborted, "");
  }
  co_return *ready;
}

// The route's socketpair end stands in for a TCP socket: libssh2 and the waits only need a
// stream descriptor (Asio's tcp::socket holds it without asking what it is).
asio::awaitable<Step> SshConnection::dial() {
  DialTarget target{plan_.hostname, plan_.port,  plan_.auth.user,
                    plan_.alias,    plan_.label, strand()};
  auto dialed = co_await wait_for<std::shared_ptr<Dialed>>([&](auto done) {
    plan_.route->dial(target, [done = std::move(done)](Dialed d) {
      done(std::make_shared<Dialed>(std::move(d)));
    });
  });
  if (!dialed) {
    *target.gave_up = true;  // a jump host need not keep its connection for this one
    co_return waiter_.failure(kWaitAborted, "");
  }
  Dialed& d = **dialed;
  if (d.failed) co_return d.failed;
  conduit_ = std::move(d.conduit);
  boost::system::error_code ec;
  waiter_.socket().assign(tcp::v4(), d.fd.get(), ec);
  if (ec) co_return StepFailure{Failure::local, "cannot register the socket: " + ec.message()};
  d.fd.release();
  waiter_.socket().non_blocking(true, ec);
  co_return Step{};
}

void SshConnection::arm_deadline(std::chrono::milliseconds after, Failure failure,
                                 const char* what) {
  ++deadline_generation_;
  deadline_.cancel();
  if (after.count() <= 0) return;
  deadline_.expires_after(after);
  deadline_.async_wait([self = shared_from_this(), generation = deadline_generation_, failure,
                        error = std::string(what) + " timed out after " +
                                format_seconds(after)](boost::system::error_code ec) {
    if (!ec && generation == self->deadline_generation_) self->abort(failure, error);
  });
}

void SshConnection::abort(Failure failure, std::string error) {
  waiter_.abort(failure, std::move(error));
  resolver_.cancel();
  admission_.cancel();
}

// The connect deadline starts once admitted: time spent queued is pdx's, not the host's.
asio::awaitable<Step> SshConnection::enter_gate() {
  holds_slot_ = holds_descriptors_ = gate_.enter([self = shared_from_this()] {
    asio::post(self->admission_.get_executor(), [self] {
      if (self->finished_) return self->gate_.leave(false);
      self->holds_slot_ = self->holds_descriptors_ = true;
      self->admission_.cancel();
    });
  });
  if (!holds_slot_) {
    admission_.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    co_await admission_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
  co_return Step{};
}

void SshConnection::leave_gate() {
  if (holds_slot_) gate_.set_up();
  holds_slot_ = false;
}

asio::awaitable<Step> SshConnection::connect() {
  boost::system::error_code ec;
  std::vector<tcp::endpoint> endpoints;
  auto address = asio::ip::make_address(plan_.hostname, ec);
  if (!ec) {
    endpoints.emplace_back(address, static_cast<unsigned short>(plan_.port));
  } else {
    auto found = co_await resolver_.async_resolve(plan_.hostname, std::to_string(plan_.port),
                                                  asio::redirect_error(asio::use_awaitable, ec));
    if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
    if (ec) co_return StepFailure{Failure::connect, "cannot resolve: " + ec.message()};
    for (const auto& entry : found) endpoints.push_back(entry.endpoint());
  }
  tcp::endpoint peer = co_await asio::async_connect(waiter_.socket(), endpoints,
                                                    asio::redirect_error(asio::use_awaitable, ec));
  if (waiter_.aborted()) co_return waiter_.failure(kWaitAborted, "");
  if (ec)
    co_return StepFailure{Failure::connect,
                          "connect to port " + std::to_string(plan_.port) + ": " + ec.message()};
  // Asio keeps a socket registered for writability once it has waited for it (the connect
  // did), and re-arms every later wait for reading with it: each wait would also report the
  // socket writable, waking a thread for nothing. Registered afresh, it waits for reading only.
  int fd = waiter_.socket().release(ec);
  if (!ec) waiter_.socket().assign(peer.protocol(), fd, ec);
  if (ec) co_return StepFailure{Failure::local, "cannot register the socket: " + ec.message()};
  waiter_.socket().non_blocking(true);
  waiter_.socket().set_option(tcp::no_delay(true), ec);  // small packets: don't wait for acks
  co_return Step{};
}

asio::awaitable<Step> SshConnection::handshake() {
  session_ = credentials_.password().empty() ? libssh2_session_init() : new_wiping_session();
  if (!session_) co_return StepFailure{Failure::local, "cannot create an ssh session"};
  waiter_.set_session(session_);
  libssh2_session_set_blocking(session_, 0);
  use_pdx_io(session_);
  const std::pair<int, const std::string*> preferences[] = {
      {LIBSSH2_METHOD_KEX, &plan_.kex_algorithms},
      {LIBSSH2_METHOD_HOSTKEY, &plan_.host_key_algorithms},
      {LIBSSH2_METHOD_CRYPT_CS, &plan_.ciphers},
      {LIBSSH2_METHOD_CRYPT_SC, &plan_.ciphers},
      {LIBSSH2_METHOD_MAC_CS, &plan_.macs},
      {LIBSSH2_METHOD_MAC_SC, &plan_.macs}};
  for (const auto& [method, list] : preferences) {
    if (list->empty()) continue;
    std::string supported = supported_algorithms(session_, method);
    std::string wanted = supported_only(apply_algorithm_list(supported, *list), supported);
    if (wanted.empty() || libssh2_session_method_pref(session_, method, wanted.c_str()) != 0)
      co_return StepFailure{Failure::local, "none of '" + *list + "' is supported by libssh2"};
  }
  long rc = co_await ssh_call(waiter_, [this] {
    return libssh2_session_handshake(session_, waiter_.socket().native_handle());
  });
  if (rc == LIBSSH2_ERROR_KEX_FAILURE) {
    // Most often an OpenSSH >= 8.8 server with only an RSA host key: it signs with rsa-sha2-*,
    // which libssh2 1.10 does not know.
    auto failed = waiter_.failure(rc, "ssh handshake");
    failed.error +=
        " (no key exchange, host key, cipher or MAC algorithm in common; a server "
        "whose only host key is RSA needs HostKeyAlgorithms +ssh-rsa in its "
        "sshd_config: libssh2 1.10 has no rsa-sha2-256/512)";
    co_return failed;
  }
  if (rc != 0) co_return waiter_.failure(rc, "ssh handshake");
  handshaken_ = true;
  co_return Step{};
}

Step SshConnection::verify_host_key() {
  std::size_t size = 0;
  int type = 0;
  const char* key = libssh2_session_hostkey(session_, &size, &type);
  if (!key) return StepFailure{Failure::host_key, "the server sent no host key"};
  auto verdict = plan_.known_hosts->verify(plan_.hostname, plan_.port,
                                           HostKey{std::string_view(key, size), type}, plan_.policy,
                                           plan_.hash_names);
  if (!verdict) return StepFailure{Failure::host_key, verdict.error()};
  return Step{};
}

// Never waits: a disconnect message if the session is up, sent with the FIN; then the socket is
// shut down so that whatever libssh2 still wants to send or read fails at once instead of asking
// to wait, and everything is freed. The socket is closed (by ~SshWaiter) only after libssh2 let go
// of it, so its descriptor cannot be reused under a live session.
void SshConnection::close() {
  if (finished_) return;  // closed, and now the destructor
  finished_ = true;
  if (holds_descriptors_) gate_.leave(!holds_slot_);
  holds_slot_ = holds_descriptors_ = false;
  ++deadline_generation_;
  deadline_.cancel();
  if (session_ && handshaken_) libssh2_session_disconnect(session_, "done");
  waiter_.send_held(MSG_MORE);  // held back for the FIN: one segment, one wakeup of the server
  boost::system::error_code ignored;
  waiter_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  waiter_.context().io.shut_down();
  if (session_) libssh2_session_free(session_);  // and the channels a failure left open
  session_ = nullptr;
  waiter_.set_session(nullptr);
  conduit_.reset();  // the ProxyCommand ends, the jump host's channel closes
}

}  // namespace pdx
