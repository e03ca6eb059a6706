#!/bin/bash
# Configures and builds pdx into build/ (or $PDX_BUILD). Extra arguments go to cmake.
# PDX_TARGETS: the ninja targets to build (default: all, the tests included; `pdx` alone is
# what the demo needs).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PDX_BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
targets=${PDX_TARGETS:-}
# pdx-static (-DPDX_STATIC=ON) goes with pdx: push deploys the one beside pdx, stale or not.
if [[ " $targets " == *" pdx "* ]] && ninja -C "$BUILD" -t targets all | grep -q '^pdx-static:'; then
  targets+=" pdx-static"
fi
# shellcheck disable=SC2086  # a list of targets
ninja -C "$BUILD" $targets
