// Must not compile: archive/ is below core/ (ARCHITECTURE.md, Layers).
#include "core/hostset.h"
