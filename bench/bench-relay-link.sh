#!/usr/bin/env bash
# One relay link's own cost, without ssh, agents or disks: 1 GiB through agent/relay_link on
# loopback in one process (bench/src/relay_link_bench.cpp), BENCH_RUNS runs (default 5): each
# run's wall time and the CPU of the sending and the receiving thread, then their medians. CPU
# is what to compare on a shared machine: the framing's cost (sealing, opening) is all in it.
# BENCH_OTHER=DIR: the same from another checkout's sources too, run in turn (a before/after).
#
#   bench/bench-relay-link.sh
# Needs g++ and OpenSSL's headers. Not a test: nothing here is asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=${BENCH_RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A tree=([this]=$here/..)
[[ -n ${BENCH_OTHER:-} ]] && tree[other]=$(realpath "$BENCH_OTHER")
for t in "${!tree[@]}"; do
  src=${tree[$t]}
  sources=("$src/agent/relay_link.cpp")
  [[ -f $src/agent/sealed_record.cpp ]] && sources+=("$src/agent/sealed_record.cpp")
  g++ -std=c++20 -O2 -I "$src" -I "$here/.." "$here/src/relay_link_bench.cpp" "${sources[@]}" -o "$work/$t" -lcrypto -lpthread
done
for ((i = 0; i < runs; i++)); do
  for t in "${!tree[@]}"; do "$work/$t" >> "$work/$t.runs"; done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
printf 'load %s\n' "$(cut -d' ' -f1 /proc/loadavg)"
for t in "${!tree[@]}"; do
  printf '%-5s wall %s s, sender CPU %s s, receiver CPU %s s (medians of %d)\n' "$t" \
    "$(cut -d' ' -f1 "$work/$t.runs" | median)" "$(cut -d' ' -f2 "$work/$t.runs" | median)" \
    "$(cut -d' ' -f3 "$work/$t.runs" | median)" "$runs"
done
