#include "cmd/commands.h"
#include "core/error.h"

namespace pdx {

int cmd_pack(int, char**) { throw FatalError("'pack' is not built yet"); }

}  // namespace pdx
