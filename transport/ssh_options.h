#pragma once
// What the command line says about ssh (the flags ssh users know), handed to the ssh transport.
#include <memory>
#include <string>
#include <vector>

namespace pdx {

class Transport;
struct Endpoint;

struct SshOptions {
  std::string user;                         // -l USER (overrides ssh_config User, not user@host)
  int port = 0;                             // -p PORT (0: ssh_config Port or 22)
  std::vector<std::string> identity_files;  // -i FILE, in order given
  std::vector<std::string> options;         // -o Key=Value / "Key Value", in order given
  std::string jump_hosts;                   // -J [user@]host[:port][,...]: ProxyJump, over -o
  std::string config_file;  // -F FILE (empty: ~/.ssh/config then /etc/ssh/ssh_config)
  bool askpass = false;     // --askpass: prompt once for a password
  std::string control_op;   // -O check|exit: ask the ControlMaster holders, run nothing
  bool holder = false;      // this process is the holder (transport/mux_holder.h): connect itself
};

/// The in-process libssh2 transport. Throws UsageError for a bad -o / -F / -i. Hosts with
/// ControlMaster and ControlPersist set go through a holder (transport/mux_transport.h).
std::unique_ptr<Transport> make_ssh_transport(const SshOptions& options);

/// `pdx -O OP -w HOSTS` (options.control_op): asks each host's holder, as `ssh -O`. Returns the
/// exit status. Throws UsageError for a bad -o / -F.
int run_control_command(const SshOptions& options, const std::vector<Endpoint>& hosts);

}  // namespace pdx
