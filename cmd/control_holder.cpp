// `pdx __control-holder PERSIST SSH-OPTIONS...`: the hidden entry point of the holder of warm
// connections (transport/mux_holder.h), started detached by a run with its listening socket on
// descriptor 3. Not for users: it has no --help.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/fd.h"
#include "cmd/commands.h"
#include "transport/mux_holder.h"
#include "transport/mux_transport.h"

namespace pdx {

int cmd_control_holder(int argc, char** argv) {
  if (argc < 2) throw UsageError("this is pdx's own ControlMaster holder, not a command");
  std::vector<std::string> args(argv + 2, argv + argc);
  auto options = parse_holder_arguments(args);
  if (!options) throw UsageError(options.error());
  long persist = std::atol(argv[1]);
  return run_mux_holder(*options, fingerprint(args), Fd(3), std::chrono::seconds(persist));
}

}  // namespace pdx
