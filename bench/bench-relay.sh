#!/usr/bin/env bash
# pdx push --relay of 1 GiB of random data (BENCH_SIZE_MIB) to 2 loopback hosts (BENCH_HOSTS)
# with DEST on tmpfs (/dev/shm), against one scp of the same file to the first host (OpenSSH's
# default cipher), also into /dev/shm: the relay's data path (the head's direct link from pdx,
# or its ssh stream with --data-via ssh, then the host-to-host links) against one ssh stream. BENCH_RUNS rounds (default 5), each running every
# tool once in turn; each run's wall time, then each tool's median and its ratio to scp's.
# BENCH_OTHER=/path/to/another/pdx: that pdx's relay too, in the same rounds (a before/after).
# The cluster must be running (scripts/loopback-cluster.sh); this script neither starts nor
# stops it. pdx's agents are deployed by a warm-up push first.
#
#   bench/bench-relay.sh [-p PDX] [-c CLUSTER_DIR]
# Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
n=${BENCH_HOSTS:-2}
mib=${BENCH_SIZE_MIB:-1024}
runs=${BENCH_RUNS:-5}
[[ -x $PDX ]] || { echo "bench-relay: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }
[[ -f $CLUSTER/ssh_config ]] || { echo "bench-relay: no cluster at $CLUSTER (-c CLUSTER_DIR)" >&2; exit 1; }
PDX=$(realpath "$PDX")
declare -A tool=([relay]=$PDX)
[[ -n ${BENCH_OTHER:-} ]] && tool[other]=$(realpath "$BENCH_OTHER")

work=$(mktemp -d /dev/shm/bench-relay.XXXXXX)
config=$CLUSTER/ssh_config
hosts=$(head -n "$n" "$CLUSTER/hostfile" | paste -sd,)
first=$(head -n 1 "$CLUSTER/hostfile")
dest=/dev/shm/bench-relay-dest-%h
clean() { "$PDX" -F "$config" -w "$hosts" "rm -rf /dev/shm/bench-relay-dest-*" > /dev/null 2>&1 || true; }
trap 'clean; rm -rf "$work"' EXIT
chmod 0755 "$work"
head -c $((mib << 20)) /dev/urandom > "$work/data"
chmod 0644 "$work/data"
for t in "${!tool[@]}"; do  # deploy each pdx's agent
  "${tool[$t]}" -F "$config" -w "$hosts" push --relay "$here/README.md" "$dest/" > /dev/null
done
clean

wall() {  # wall LABEL CMD...: the wall time of CMD, in s, appended to $work/LABEL
  local label=$1 start end
  shift
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc >> "$work/$label"
  clean
}
for ((i = 0; i < runs; i++)); do
  printf 'round %d (load %s)\n' "$((i + 1))" "$(cut -d' ' -f1 /proc/loadavg)"
  wall scp scp -q -F "$config" "$work/data" "$first:/dev/shm/bench-relay-dest-scp"
  for t in "${!tool[@]}"; do
    wall "$t" "${tool[$t]}" -F "$config" -w "$hosts" push --relay "$work/data" "$dest/"
  done
done
median() { sort -n "$work/$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
scp_median=$(median scp)
for label in scp "${!tool[@]}"; do
  m=$(median "$label")
  printf '%-6s runs: %s  median %.2f s  (%.2fx one scp)\n' "$label" "$(paste -sd' ' "$work/$label")" \
    "$m" "$(echo "$m / $scp_median" | bc -l)"
done
