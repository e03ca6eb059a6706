#pragma once
// ProxyJump: every host behind a jump host is reached through ONE authenticated connection to
// it (a "link"), a direct-tcpip channel per host on it. Each host's own libssh2 session talks to
// one end of a socketpair; the link's strand pumps bytes between the other end and the channel.
// So 512 hosts behind a bastion cost one bastion login, not 512 (ssh -J logs in per host).
//
//   reach:  the first host to ask opens the link (the jump host's own ssh_config entry, its
//           host key checked as any host's, itself through its own route for several hops);
//           every host waits for it; a link that cannot be opened fails them all, named:
//           "via bastion1: connect timed out after 10s", and every later host of the run.
//   dial:   one channel open at a time per link (libssh2 keeps one open in progress per
//           session), queued at the jump host and taken by links with room. An open that takes
//           over a second while hosts wait (the jump host connecting to a host down waits for
//           TCP's SYN retries, minutes) gets them another link (at most 16); an open its host
//           gave up on does not keep the link.
//   pump:   on the link's strand, woken by the link's socket or a tunnel's socketpair end; the
//           socket is waited on for reading only while a round would read it (libssh2 reads it
//           for a channel only): a link with nothing to read, its tunnels ended, would otherwise
//           find it readable for ever (the jump host's late channel close, its keepalives)
//           and spin.
//   lost:   the link's connection failing fails every tunnel on it with "via NAME: ..." and
//           their hosts report that instead of their own "connection lost".
//   more:   a link that refuses a channel (resource shortage, administratively prohibited)
//           while it carries others is full: another link is opened for the rest, said once.
//           (OpenSSH's MaxSessions does not count direct-tcpip channels: one link carries all.)
//   idle:   the links close 100 ms after the hop was first found with no tunnels and nothing
//           queued (what the links do meanwhile does not put it off).
#include <boost/asio/any_io_executor.hpp>
#include <memory>
#include <string>

#include "transport/ssh_connection.h"
#include "transport/ssh_route.h"

namespace pdx {

/// The route through jump host `name` (as the user wrote it), reached with `plan` (whose own
/// route leads to it), connections set up through `gate`. `ex`: any executor of the run's
/// io_context (the hop makes a strand of its own on it).
std::shared_ptr<Route> jump_route(std::string name, HostPlan plan, Credentials& credentials,
                                  SetupGate& gate, boost::asio::any_io_executor ex);

}  // namespace pdx
