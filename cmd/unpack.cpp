#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_unpack(int, char**) { throw FatalError("'unpack' is not built yet"); }

}  // namespace pdx
