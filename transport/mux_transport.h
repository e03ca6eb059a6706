#pragma once
// Warm connections across runs, as ssh's ControlMaster/ControlPersist/ControlPath: a Transport
// in front of the ssh transport. For a host whose ssh_config (or -o) sets ControlMaster
// yes/auto and ControlPersist, open() asks the holder answering on the host's ControlPath
// (transport/mux_holder.h) for a session; where none answers, it starts a holder for the run
// (pdx itself, detached) and asks it, and the holder connects the host and then answers on its
// ControlPath for later runs. Each exec is then a new channel on the holder's session, its
// stdin, output, exit status and Ctrl-C carried over the Unix socket. A ControlPath whose
// directory is not safe, or a holder that cannot be reached, means connecting directly (said
// once); other hosts, and ControlMaster no, go straight to the ssh transport.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "transport/mux_path.h"
#include "transport/ssh_options.h"
#include "transport/transport.h"

namespace pdx {

/// A host's warm-connection settings, from ssh_config and the command line.
using ControlLookup = std::function<ControlTarget(const Endpoint&)>;

std::unique_ptr<Transport> make_mux_transport(std::unique_ptr<Transport> direct,
                                              ControlLookup lookup, const SshOptions& options);

/// The ssh options as the holder's command line (after `pdx __control-holder PERSIST`), and
/// back. The joined words are the fingerprint a holder checks runs against.
std::vector<std::string> holder_arguments(const SshOptions& options);
Result<SshOptions> parse_holder_arguments(const std::vector<std::string>& args);
std::string fingerprint(const std::vector<std::string>& args);

/// The hidden subcommand the holder runs as.
constexpr const char* kHolderCommand = "__control-holder";

/// `pdx -O check|exit`: asks each host's holder, reports as `ssh -O` does ("Master running
/// (pid=N)", "Exit request sent."), on stderr prefixed with the host. Returns 0 if every host
/// had a holder, else 255.
int control_command(const std::string& op, const std::vector<Endpoint>& hosts,
                    const ControlLookup& lookup);

}  // namespace pdx
