#!/bin/bash
# Configures and builds pdx into build/ (or $PDX_BUILD). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PDX_BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C "$BUILD"
