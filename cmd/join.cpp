#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_join(int, char**) { throw FatalError("'join' is not built yet"); }

}  // namespace pdx
