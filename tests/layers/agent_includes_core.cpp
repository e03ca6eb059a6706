// Must not compile: the agent runs on the hosts and never sees core/ (ARCHITECTURE.md, Layers).
#include "core/executor.h"
