#!/usr/bin/env bash
# pdx verify against what people run today, on the loopback sshd cluster (an account and home
# per host: run as root), 16 hosts each holding the same mixed tree (BENCH_FILES small files,
# default 20000, and 4 files of 32 MiB):
#   counts: pdx verify DIR --against LOCAL   vs  pdsh 'find DIR -type f | wc -l'
#   hashes: pdx verify DIR --hash             vs  pdsh 'cd DIR && find . -type f -print0 |
#                                                  sort -z | xargs -0 sha256sum | sha256sum'
#   (and pdx verify DIR --hash --no-agent: the hosts' find and sha256sum, as the fallback is)
# Each the best wall time of BENCH_RUNS runs (default 3), with that run's load average (1 min,
# at its start: the machine is shared), the CPU seconds per run of the tool and its children
# (client) and of the cluster's sshd side (bench/lib/cpu.sh: /proc/PID/stat, so other work does
# not count), the tool's peak RSS, and the ratios pdx / pdsh of wall time and of all CPU. Not a
# test: nothing is asserted.
#
#   bench/bench-verify.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (Debian package), root.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/cpu.sh"
HOSTS=16
FILES=${BENCH_FILES:-20000}
RUNS=${BENCH_RUNS:-3}
command -v pdsh > /dev/null || { echo "bench-verify: pdsh is missing (apt-get install pdsh)" >&2; exit 1; }
[[ $EUID -eq 0 ]] || { echo "bench-verify: run as root (an account per host)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-verify: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$HOSTS"
work=$(mktemp -d)
dir=pdx-bench-verify
hosts=$(head -n "$HOSTS" "$CLUSTER/hostfile" | paste -sd,)
cleanup() {
  "$PDX" -F "$CLUSTER/ssh_config" -w "$hosts" "rm -rf $dir" || true
  rm -rf "$work"
}
trap cleanup EXIT

# The tree, here and (copied by tar over pdx's stdin) on every host.
python3 - "$work/tree" "$FILES" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    d = os.path.join(root, f"d{i % 100:02d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i}"), "wb") as f: f.write(os.urandom(64 + i % 4096))
for i in range(4):
    with open(os.path.join(root, f"big{i}"), "wb") as f: f.write(os.urandom(32 << 20))
PY
tar -cf - -C "$work/tree" . | "$PDX" -F "$CLUSTER/ssh_config" -w "$hosts" "mkdir -p $dir && tar -xf - -C $dir"

# best WHAT CMD...: RUNS runs: WHAT, the least wall time and the load at that run's start, the
# client and sshd CPU seconds per run (over all RUNS: a session's CPU is counted when sshd reaps
# it, which may be after the run), the peak RSS of the least (MiB).
best() {
  local what=$1 wall user sys rss load before after least= at= client=0 peak=
  shift
  sessions_ended  # the sessions of what ran before: theirs, not this tool's
  before=$(sshd_cpu)
  for _ in $(seq "$RUNS"); do
    read -r load _ < /proc/loadavg
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2>&1 || true
    read -r wall user sys rss < <(tail -n 1 "$work/time")  # after "Command exited with non-zero status"
    client=$(echo "$client + $user + $sys" | bc)
    if [[ -z $least ]] || awk "BEGIN { exit !($wall < $least) }"; then
      least=$wall at=$load peak=$((rss / 1024))
    fi
  done
  sessions_ended  # the last run's sessions reaped: their CPU counted
  after=$(sshd_cpu)
  echo "$what $least $at $(echo "scale=2; $client / $RUNS" | bc) $(echo "scale=2; ($after - $before) / $RUNS" | bc) $peak"
}
pdsh_run() {
  PDSH_SSH_ARGS="-F $CLUSTER/ssh_config -x -a %h" pdsh -R ssh -f "$HOSTS" -w "$hosts" "$1"
}
export -f pdsh_run
export CLUSTER HOSTS hosts
"$PDX" verify -F "$CLUSTER/ssh_config" -w "$hosts" "$dir" > /dev/null 2>&1 || true  # deploys

{
  best pdx_counts "$PDX" verify -F "$CLUSTER/ssh_config" -w "$hosts" "$dir" --against "$work/tree"
  best pdsh_counts bash -c "pdsh_run 'find $dir -type f | wc -l'"
  best pdx_hashes "$PDX" verify -F "$CLUSTER/ssh_config" -w "$hosts" "$dir" --hash
  best pdx_posix "$PDX" verify -F "$CLUSTER/ssh_config" -w "$hosts" "$dir" --hash --no-agent
  best pdsh_hashes bash -c "pdsh_run 'cd $dir && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum'"
} > "$work/results"
"$PDX" verify -F "$CLUSTER/ssh_config" -w "$hosts" "$dir" --against "$work/tree" --hash || true

echo "verify of $FILES small files + 128 MiB on $HOSTS hosts, $(nproc) cores (best of $RUNS)"
printf '%-12s %7s %6s %8s %8s %8s %7s %7s\n' what wall_s load client_s sshd_s rss_mib x_wall x_cpu
awk '{ wall[$1] = $2; load[$1] = $3; cpu[$1] = $4 + $5; client[$1] = $4; sshd[$1] = $5
       rss[$1] = $6; order[NR] = $1 }
  END { for (i = 1; i <= NR; i++) { w = order[i]; base = w; sub(/^pdx_posix/, "pdx_hashes", base)
        sub(/^pdx_hashes/, "pdsh_hashes", base); sub(/^pdx/, "pdsh", base)
        printf "%-12s %7.2f %6.2f %8.2f %8.2f %8d %7.2f %7.2f\n", w, wall[w], load[w], client[w],
          sshd[w], rss[w], wall[w] / wall[base], cpu[w] / cpu[base] } }' "$work/results"
