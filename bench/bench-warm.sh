#!/usr/bin/env bash
# Warm connections across runs, on the loopback sshd cluster: `hostname` on N hosts (default 256)
# at fan-out N by
#   pdx cold     a plain run: a handshake and a login per host
#   pdx warm     ControlMaster auto + ControlPersist: the runs after the first go through the
#                holder the first one left (a new channel on a held session per host)
#   pdsh cold    pdsh -R ssh, plain
#   pdsh warm    pdsh -R ssh with ssh's own ControlMaster auto + ControlPersist (through
#                PDSH_SSH_ARGS_APPEND): the runs after the first go through ssh's masters
# With BENCH_PUSH_MIB=M, also `push` of an M MiB file to every host, cold and warm (the warm one
# through the holder, its data over direct links to the agents as a cold push's).
# Each the median of BENCH_RUNS runs (default 5; the first warm runs, which make the holder or
# the masters, are not counted), its ratio to cold pdx, and the logins each run made, counted in
# the sshd log ("Accepted publickey": the cluster's sshds are switched to LogLevel INFO).
#
#   bench/bench-warm.sh [-p PDX] [-c CLUSTER_DIR] [N]
# Needs: pdsh (Debian package). Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
shift $((OPTIND - 1))
N=${1:-256}
runs=${BENCH_RUNS:-5}
push_mib=${BENCH_PUSH_MIB:-0}
command -v pdsh > /dev/null || { echo "bench-warm: pdsh is missing (apt-get install pdsh)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-warm: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$N"
# Logins are logged at INFO; an sshd re-reads its config on SIGHUP.
if grep -q '^LogLevel ERROR$' "$CLUSTER"/sshd.*.conf; then
  sed -i 's/^LogLevel ERROR$/LogLevel INFO/' "$CLUSTER"/sshd.*.conf
  for pid in $(cat "$CLUSTER"/sshd.*.pid); do kill -HUP "$pid"; done
  sleep 2
fi

work=$(mktemp -d)
mkdir -m 700 "$work/cm"
config=$CLUSTER/ssh_config
hosts=$(head -n "$N" "$CLUSTER/hostfile" | paste -sd,)
pdx_control=(-o ControlMaster=auto -o ControlPersist=600 -o "ControlPath=$work/cm/%C")
ssh_control="-o ControlMaster=auto -o ControlPersist=600 -o ControlPath=$work/cm/ssh-%C"
cleanup() {
  if (( push_mib > 0 )); then
    "$PDX" -F "$config" -f "$N" -w "$hosts" 'rm -rf bench-warm-push' > /dev/null 2>&1 || true
  fi
  "$PDX" -F "$config" "${pdx_control[@]}" -O exit -w "$hosts" 2> /dev/null || true
  while read -r host; do
    ssh -F "$config" -o "ControlPath=$work/cm/ssh-%C" -O exit "$host" 2> /dev/null || true
  done < <(head -n "$N" "$CLUSTER/hostfile")
  rm -rf "$work"
}
trap cleanup EXIT

logins() { grep -c 'Accepted publickey' "$CLUSTER/sshd.log" || true; }

# measure LABEL CMD...: one run; appends "LABEL wall_ms logins lines" to $work/runs.
measure() {
  local label=$1 before start end
  shift
  before=$(logins)
  start=$(date +%s%N)
  "$@" < /dev/null > "$work/out" 2> /dev/null || true
  end=$(date +%s%N)
  echo "$label $(( (end - start) / 1000000 )) $(( $(logins) - before )) $(wc -l < "$work/out")" >> "$work/runs"
}

pdx_cold() { "$PDX" -F "$config" -f "$N" -w "$hosts" hostname; }
pdx_warm() { "$PDX" -F "$config" "${pdx_control[@]}" -f "$N" -w "$hosts" hostname; }
# A new modification time each push: the hosts' copies differ, and the file is sent whole.
pdx_push_cold() {
  touch "$work/payload"
  "$PDX" -F "$config" -f "$N" -w "$hosts" push "$work/payload" bench-warm-push/
}
pdx_push_warm() {
  touch "$work/payload"
  "$PDX" -F "$config" "${pdx_control[@]}" -f "$N" -w "$hosts" push "$work/payload" bench-warm-push/
}
pdsh_cold() { PDSH_SSH_ARGS_APPEND="-F $config" pdsh -R ssh -f "$N" -w "$hosts" hostname; }
pdsh_warm() { PDSH_SSH_ARGS_APPEND="-F $config $ssh_control" pdsh -R ssh -f "$N" -w "$hosts" hostname; }

: > "$work/runs"
(( push_mib == 0 )) || head -c $((push_mib << 20)) /dev/urandom > "$work/payload"
measure "pdx-first-warm" pdx_warm      # leaves the holder
measure "pdsh-first-warm" pdsh_warm    # leaves ssh's masters
for ((r = 0; r < runs; r++)); do       # the tools take turns: a slow spell hits them all
  measure "pdx-cold" pdx_cold
  measure "pdx-warm" pdx_warm
  measure "pdsh-cold" pdsh_cold
  measure "pdsh-warm" pdsh_warm
  if (( push_mib > 0 )); then
    measure "pdx-push-cold" pdx_push_cold
    measure "pdx-push-warm" pdx_push_warm
  fi
done

echo "hostname (and push of $push_mib MiB) on $N loopback hosts, median of $runs runs ($(nproc) cores)"
awk '
  { wall[$1] = wall[$1] " " $2; logins[$1] += $3; lines[$1] += $4; n[$1]++ }
  function median(list,   a, k, i, j, t) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    printf "%-16s %10s %12s %14s %12s\n", "tool", "wall_ms", "x pdx cold", "logins/run", "lines/run"
    k = split("pdx-cold pdx-warm pdsh-cold pdsh-warm pdx-first-warm pdsh-first-warm pdx-push-cold pdx-push-warm", order, " ")
    for (i = 1; i <= k; i++) {
      t = order[i]
      if (!(t in n)) continue
      base = median(wall[t ~ /push/ ? "pdx-push-cold" : "pdx-cold"])  # a push against a push
      m = median(wall[t])
      printf "%-16s %10d %12.3f %14.1f %12.1f\n", t, m, m / base, logins[t] / n[t], lines[t] / n[t]
    }
  }' "$work/runs"
