#include "core/error.h"
#include "transport/ssh_options.h"
#include "transport/transport.h"

namespace pdx {

std::unique_ptr<Transport> make_ssh_transport(const SshOptions&) {
  throw FatalError("the ssh transport is not built yet; use -R exec");
}

}  // namespace pdx
