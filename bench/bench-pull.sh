#!/usr/bin/env bash
# pdx pull against pdsh's rpdcp on the loopback sshd cluster: a file of 64 MiB of random data on
# each of 16 hosts (BENCH_SIZE_MIB, BENCH_HOSTS) gathered here, pdx twice: over its direct links
# from the agents (the default) and through each host's ssh channel (--data-via ssh). The tools
# take turns, BENCH_RUNS rounds (3), and the medians are shown: wall time, CPU (user+sys of the
# tool and its children) and each one's wall against pdx's. pdx's agent is deployed by a warm-up
# pull first, as in use.
#
#   bench/bench-pull.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (rpdcp, which needs rpdcp on the hosts too: it is this machine's). Not a test.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
n=${BENCH_HOSTS:-16}
rounds=${BENCH_RUNS:-3}
mib=${BENCH_SIZE_MIB:-64}
command -v rpdcp > /dev/null || { echo "bench-pull: rpdcp is missing (apt-get install pdsh)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-pull: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }
PDX=$(realpath "$PDX")

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$n"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=$work/ssh_config
{ printf 'Host *\n  KexAlgorithms curve25519-sha256\n'; cat "$CLUSTER/ssh_config"; } > "$config"
head -n "$n" "$CLUSTER/hostfile" > "$work/hosts"
hosts=$(paste -sd, "$work/hosts")
"$PDX" -F "$config" -w "$hosts" "head -c $((mib << 20)) /dev/urandom > bench-pull-data" > /dev/null

run() {  # run LABEL CMD...: one timed run into a fresh $work/out
  local label=$1
  shift
  rm -rf "$work/out" && mkdir "$work/out"
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > /dev/null 2> "$work/err" ||
    { echo "bench-pull: $label failed: $(tail -n 3 "$work/err")" >&2; exit 1; }
  read -r wall user sys < "$work/time"
  echo "$label $wall $(echo "$user + $sys" | bc)" >> "$work/results"
}

"$PDX" -F "$config" -w "$hosts" pull bench-pull-data "$work/warm" > /dev/null 2>&1  # deploys
for _ in $(seq "$rounds"); do
  run "pdx" "$PDX" -F "$config" -f "$n" -w "$hosts" pull --no-progress bench-pull-data "$work/out"
  run "pdx-ssh" "$PDX" -F "$config" -f "$n" -w "$hosts" pull --no-progress --data-via ssh bench-pull-data "$work/out"
  run "rpdcp" env PDSH_SSH_ARGS="-F $config -x -a %h" \
    rpdcp -R ssh -f "$n" -w "$hosts" bench-pull-data "$work/out"
done
"$PDX" -F "$config" -w "$hosts" "rm -f bench-pull-data" > /dev/null

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "pull: $n hosts x $mib MiB, medians of $rounds runs"
pdx_wall=$(awk '$1 == "pdx" { print $2 }' "$work/results" | median)
printf '%-8s %8s %8s %8s\n' tool wall_s cpu_s vs_pdx
for tool in pdx pdx-ssh rpdcp; do
  wall=$(awk -v t=$tool '$1 == t { print $2 }' "$work/results" | median)
  cpu=$(awk -v t=$tool '$1 == t { print $3 }' "$work/results" | median)
  printf '%-8s %8s %8s %8s\n' "$tool" "$wall" "$cpu" "$(echo "scale=2; $wall / $pdx_wall" | bc)"
done
