#pragma once
// The holder of warm connections: pdx started detached by a run with ControlPersist set
// (transport/mux_transport.h), owning authenticated ssh sessions for later runs. It answers on
// the run's private listening socket and on each host's ControlPath, serves only its own uid
// (SO_PEERCRED), and opens a new channel on a held session for each exec a run asks for,
// pumping stdin, output, exit status and Ctrl-C between the channel and the run.
//
// A session is taken by one connection at a time (a second run on the same host at once gets
// a second session); a session found dropped when taken, or after a failed exec, is replaced by
// a new login, and every other dropped one goes first (those behind a jump host whose connection
// was lost hold its route: without them, the jump host is logged in to again, once). An idle
// session whose host was not heard from for its ServerAliveInterval is sent a keepalive
// (Session::answers()); one not answered within ServerAliveCountMax intervals is dropped. The
// run is told, per host, whether its session reached the host over TCP of its own (push's
// direct data links).
//
// The holder exits `persist` after its last connection ended (0: never by time), on
// `pdx -O exit`, on SIGTERM, and once every session it held has dropped; it removes the socket
// files it made.
#include <chrono>
#include <string>

#include "base/fd.h"
#include "transport/ssh_options.h"

namespace pdx {

/// Runs the holder until it exits; `listener` is a listening Unix socket. `fingerprint` names
/// the ssh options it connects with: a run with other options is declined (it connects itself).
/// Returns the exit status.
int run_mux_holder(const SshOptions& options, const std::string& fingerprint, Fd listener,
                   std::chrono::seconds persist);

}  // namespace pdx
