#!/usr/bin/env bash
# Launch overhead: a hostname-like python job that prints its host and node rank, started on N
# loopback hosts (default 16) at fan-out N, by pdx ($PDX_RANK), by pdx under the pdsh name and by
# Debian's pdsh -R ssh (both --node_rank-style %n). Prints wall and client CPU (user+sys of the
# tool and its children) as the best of RUNS runs, the tools taking turns, and each as a multiple
# of pdx. Every tool gets the same ssh options (the cluster's ssh_config plus KexAlgorithms
# curve25519-sha256). Not a test: nothing here is asserted but that every host answered.
#
#   bench/bench-launch.sh [HOSTS=16] [RUNS=5]        PDX=build/pdx, BENCH_CLUSTER=DIR
# Needs pdsh and bc (Debian packages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HOSTS=${1:-16}
RUNS=${2:-5}
PDX=$(realpath "${PDX:-$here/../build/pdx}")
CLUSTER=${BENCH_CLUSTER:-/tmp/pdx-bench-cluster}
command -v pdsh > /dev/null || { echo "bench-launch: pdsh is missing (scripts/deps.sh)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-launch: no pdx at $PDX (build first, or PDX=...)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$HOSTS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=$work/ssh_config
{ printf 'Host *\n  KexAlgorithms curve25519-sha256\n'; cat "$CLUSTER/ssh_config"; } > "$config"
head -n "$HOSTS" "$CLUSTER/hostfile" > "$work/hosts"
hosts=$(paste -sd, "$work/hosts")
port=$(awk '{ print $2 }' "$CLUSTER/cluster")
ln -s "$PDX" "$work/pdsh"  # pdx as pdsh
job="/usr/bin/python3 -c 'import socket, sys; print(socket.gethostname(), sys.argv[1])'"

# measure NAME CMD...: one run; checks that every host printed a line; appends "NAME wall cpu".
measure() {
  local name=$1 wall user sys
  shift
  read -r wall user sys < <(/usr/bin/time -f "%e %U %S" "$@" 2>&1 > "$work/out" < /dev/null | tail -1)
  [[ $(grep -c . "$work/out") -eq $HOSTS ]] || { echo "bench-launch: $name: not $HOSTS lines:" >&2; cat "$work/out" >&2; exit 1; }
  echo "$name $wall $(echo "$user + $sys" | bc)" >> "$work/runs"
}

: > "$work/runs"
for _ in $(seq "$RUNS"); do
  measure pdx "$PDX" -F "$config" -w "$hosts" -f "$HOSTS" "$job \$PDX_RANK"
  measure "pdx-as-pdsh" env PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND=" -F $config -p $port" \
    "$work/pdsh" -S -f "$HOSTS" -w "$hosts" "$job" %n
  measure "pdsh-R-ssh" env PDSH_SSH_ARGS="-F $config -x -a %h" \
    pdsh -S -R ssh -f "$HOSTS" -w "$hosts" "$job" %n
done

echo "python job printing host and rank on $HOSTS hosts, fan-out $HOSTS: best of $RUNS runs"
awk '
  !($1 in wall) { order[++n] = $1; wall[$1] = $2; cpu[$1] = $3 }
  { if ($2 < wall[$1]) wall[$1] = $2; if ($3 < cpu[$1]) cpu[$1] = $3 }
  END {
    printf "%-14s %8s %8s %12s %12s\n", "tool", "wall_s", "cpu_s", "wall/pdx", "cpu/pdx"
    for (i = 1; i <= n; i++) {
      t = order[i]
      printf "%-14s %8.2f %8.2f %12.2f %12.2f\n", t, wall[t], cpu[t], wall[t] / (wall["pdx"] ? wall["pdx"] : 0.01), \
        cpu[t] / (cpu["pdx"] ? cpu["pdx"] : 0.01)
    }
  }' "$work/runs"
