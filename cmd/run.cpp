#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_run(int, char**) { throw FatalError("not built yet"); }

}  // namespace pdx
