#pragma once
// ProxyCommand (ssh_config(5)): a host's connection runs over the stdin and stdout of
// `/bin/sh -c 'exec COMMAND'` run here for it, as ssh(1) runs it (%h %p %r %n %% expanded).
// Its stderr goes to pdx's stderr, each line prefixed with the host. It gets SIGHUP when the
// connection ends (as from ssh), SIGKILL if it is still there a second later, and is reaped on
// the connection's strand.
#include <memory>
#include <string>

#include "transport/ssh_route.h"

namespace pdx {

/// The route of hosts whose ProxyCommand is `command` (not yet expanded).
std::shared_ptr<Route> proxy_command_route(std::string command);

/// `command` with ssh's ProxyCommand tokens expanded: %h %p %r %n %%.
std::string expand_proxy_command(const std::string& command, const DialTarget& target);

}  // namespace pdx
