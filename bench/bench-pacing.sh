#!/usr/bin/env bash
# No host lost to pdx's own speed: `hostname` on HOSTS loopback hosts while LOAD busy processes
# compete with sshd for the CPU, pdx (default -t, 10 s) against pdsh -R ssh, and clush and
# parallel-ssh when installed, every tool at fan-out = hosts, taking turns in each of RUNS
# rounds (so a slow spell of the machine hits them all). With -b PDX_BEFORE, an older pdx takes
# its turn too (an A/B of a change).
# For each run: wall time, hosts lost (hosts whose hostname did not come back) and the lines of
# the tool's stderr that said "timed out" (pdx folds hosts failing alike in one). Then per tool: the median wall,
# hosts lost in all, and the median of each run's wall ratio to pdsh's in the same round.
# The load is LOAD shell loops at this script's niceness: run the script under `nice`, on a
# cluster started under the same `nice`, so that sshd, the load and the tools share one
# priority and the rest of the machine keeps its own. The load runs only while the tools do.
#
#   bench/bench-pacing.sh [-p PDX] [-c CLUSTER_DIR] [-b PDX_BEFORE] [HOSTS=512] [LOAD=40] [RUNS=3]
#   BENCH_TOOLS="pdx pdsh" limits the tools compared (default: every one installed).
# Needs pdsh (clustershell and pssh optional). Not a test: nothing here is asserted.
set -euo pipefail
BEFORE=
args=()
while (($#)); do
  case $1 in
    -b) BEFORE=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]}"
source "$(dirname "$0")/lib/cluster_options.sh"
shift $((OPTIND - 1))
HOSTS=${1:-512} LOAD=${2:-40} RUNS=${3:-3}

[[ -x $PDX ]] || { echo "bench-pacing: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }
[[ -z $BEFORE || -x $BEFORE ]] || { echo "bench-pacing: no pdx at $BEFORE" >&2; exit 1; }
command -v pdsh > /dev/null || { echo "bench-pacing: pdsh is missing (apt-get install pdsh)" >&2; exit 1; }
tools=(${BENCH_TOOLS:-pdx pdsh clush parallel-ssh})
[[ -n $BEFORE ]] && tools=(pdx-before "${tools[@]}")

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$HOSTS"
work=$(mktemp -d)
load_pids=()
stop_load() {
  local pid
  for pid in "${load_pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  load_pids=()
}
trap 'stop_load; rm -rf "$work"' EXIT
head -n "$HOSTS" "$CLUSTER/hostfile" > "$work/hosts"
config=$work/ssh_config
{ printf 'Host *\n  KexAlgorithms curve25519-sha256\n'; cat "$CLUSTER/ssh_config"; } > "$config"
me=$(hostname)

command_of() {  # the command line of tool $1
  case $1 in
    pdx) echo "$PDX -F $config -w ^$work/hosts -f $HOSTS hostname" ;;
    pdx-before) echo "$BEFORE -F $config -w ^$work/hosts -f $HOSTS hostname" ;;
    pdsh) echo "env PDSH_SSH_ARGS=-F$config\ -x\ -a\ %h pdsh -R ssh -f $HOSTS -w ^$work/hosts hostname" ;;
    clush) echo "clush -f $HOSTS --hostfile $work/hosts -o -F$config hostname" ;;
    parallel-ssh) echo "parallel-ssh -h $work/hosts -p $HOSTS -t 0 -x -F$config -i hostname" ;;
  esac
}

run() {  # run ROUND TOOL: one run under load, a line in $work/runs
  local round=$1 tool=$2 start end got timeouts i
  [[ $tool == pdx* ]] || command -v "$tool" > /dev/null || return 0
  for ((i = 0; i < LOAD; i++)); do
    sh -c 'while :; do :; done' &
    load_pids+=($!)
  done
  sleep 1  # the load is running before the tool starts
  start=$(date +%s.%N)
  # Words split on purpose; a backslash keeps pdsh's ssh arguments together.
  eval "$(command_of "$tool")" > "$work/out" 2> "$work/err" < /dev/null || true
  end=$(date +%s.%N)
  stop_load
  got=$(grep -c -- "$me\$" "$work/out" || true)
  timeouts=$(grep -ci "timed out" "$work/err" || true)
  echo "$round $tool $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }') \
$((HOSTS - got)) $timeouts" | tee -a "$work/runs"
  sleep 5  # the hosts' sessions end
}

echo "hostname on $HOSTS hosts under $LOAD busy loops, fan-out $HOSTS, $RUNS rounds"
echo "round tool wall_s lost timed_out_lines"
: > "$work/runs"
for ((r = 1; r <= RUNS; r++)); do
  for tool in "${tools[@]}"; do run "$r" "$tool"; done
done

# Per tool: median wall, hosts lost in all, median of the per-round wall ratio to pdsh.
awk '
  function median(list, n,   i, j, t, a) {
    split(list, a, " "); n = length(a)
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  !($2 in walls) { order[++tools] = $2 }
  { walls[$2] = walls[$2] " " $3; lost[$2] += $4; lost_runs[$2] = lost_runs[$2] " " $4
    wall[$1, $2] = $3; rounds[$1] = 1 }
  END {
    print "tool median_wall_s hosts_lost(per run) median_wall_ratio_to_pdsh"
    for (i = 1; i <= tools; i++) {
      t = order[i]; ratios = ""
      for (r in rounds) if ((r, "pdsh") in wall && wall[r, "pdsh"] > 0) ratios = ratios " " wall[r, t] / wall[r, "pdsh"]
      printf "%-13s %8.2f %5d (%s) %s\n", t, median(walls[t]), lost[t], substr(lost_runs[t], 2), \
        ratios == "" ? "-" : sprintf("x%.2f", median(ratios))
    }
  }' "$work/runs"
