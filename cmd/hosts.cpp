#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_hosts(int, char**) { throw FatalError("'hosts' is not built yet"); }

}  // namespace pdx
