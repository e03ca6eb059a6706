#pragma once
// How a connection's bytes reach its host when not over a TCP connection of its own: a
// ProxyCommand (transport/proxy_command.h) or a jump host (transport/ssh_jump.h). Either hands
// the connection one end of a socketpair, which libssh2 reads and writes as it would a TCP
// socket; the Conduit keeps the other end fed and is closed with the connection.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/fd.h"
#include "transport/ssh_call.h"

namespace pdx {

/// What feeds a connection's socketpair end. Its destructor stops it (and frees what it holds).
class Conduit {
 public:
  virtual ~Conduit() = default;
  /// Why the bytes stopped, when a hop failed rather than the host (the jump host's connection
  /// was lost): the connection reports this instead of its own failure. One line, no host name.
  virtual std::optional<StepFailure> hop_failure() const { return std::nullopt; }
};

/// A socketpair end for the connection, or why there is none.
struct Dialed {
  Fd fd;
  std::shared_ptr<Conduit> conduit;
  Step failed;
};

/// Where the host is and what the route's %-tokens say of it.
struct DialTarget {
  std::string host;                     // HostName (%h)
  int port = 22;                        // %p
  std::string user;                     // %r
  std::string alias;                    // the host as given (%n)
  std::string label;                    // for the lines a ProxyCommand writes on stderr
  boost::asio::any_io_executor strand;  // the connection's
  /// Set when the connection no longer waits for its dial (its deadline, Ctrl-C).
  std::shared_ptr<std::atomic<bool>> gave_up = std::make_shared<std::atomic<bool>>(false);
};

class Route {
 public:
  using Ready = std::function<void(Step)>;
  using Done = std::function<void(Dialed)>;
  virtual ~Route() = default;
  /// Calls `ready` (once, from any thread) when the hops before the host are reachable, or
  /// with their failure ("via HOP: ..."). Not under the host's connect deadline: time spent
  /// reaching the hops is theirs. `gave_up` is set if the caller stops waiting (Ctrl-C).
  virtual void reach(Ready ready, std::shared_ptr<std::atomic<bool>> gave_up) = 0;
  /// Calls `done` (once, from any thread) with the host's end of a new conduit.
  virtual void dial(const DialTarget& target, Done done) = 0;
};

}  // namespace pdx
