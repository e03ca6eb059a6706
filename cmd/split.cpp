#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_split(int, char**) { throw FatalError("'split' is not built yet"); }

}  // namespace pdx
