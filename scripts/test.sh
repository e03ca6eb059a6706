#!/bin/bash
# On a fresh Debian 12 machine: install what is needed, build, start the loopback sshd hosts
# (a ctest fixture does that), and run every test. Exit status is ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh -DPDX_DEV_MODE=ON -DPDX_STATIC=ON
groff -man -ww -z man/pdx.1
cd "${PDX_BUILD:-build}"
ctest --output-on-failure -j2 "$@"
