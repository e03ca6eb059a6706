// Must compile: archive/ uses hash/ (ARCHITECTURE.md, Layers); the control for the others.
#include "hash/sha256.h"
