#!/bin/bash
# Executor overhead: `true` on N hosts through -R exec (a process per host, no network), pdx vs
# pdsh -R exec, at the same fan-out. Prints wall and CPU (user+sys of the tool and all it ran)
# as the best of REPEAT runs, and pdx's ratios. Not a test: run by hand.
#   bench/bench-exec.sh [HOSTS=1000] [FANOUT=64] [REPEAT=3]
set -euo pipefail
cd "$(dirname "$0")/.."
HOSTS=${1:-1000}
FANOUT=${2:-64}
REPEAT=${3:-3}
PDX=${PDX:-build/pdx}
command -v pdsh >/dev/null || { echo "bench: pdsh missing (scripts/deps.sh)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench: build pdx first (scripts/build.sh)" >&2; exit 1; }

# measure NAME CMD...: best wall and best cpu over REPEAT runs, as "wall cpu".
measure() {
  local best_wall=999999 best_cpu=999999
  for _ in $(seq "$REPEAT"); do
    read -r wall user sys < <(/usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1)
    cpu=$(echo "$user + $sys" | bc)
    best_wall=$(echo "if ($wall < $best_wall) $wall else $best_wall" | bc)
    best_cpu=$(echo "if ($cpu < $best_cpu) $cpu else $best_cpu" | bc)
  done
  echo "$best_wall $best_cpu"
}

hosts="n[1-$HOSTS]"
printf '%-34s %8s %8s\n' "tool ($HOSTS hosts, fan-out $FANOUT)" "wall s" "cpu s"
read -r pdx_wall pdx_cpu < <(measure "$PDX" -R exec -n -f "$FANOUT" -w "$hosts" true)
printf '%-34s %8s %8s\n' "pdx -R exec 'true' (via sh -c)" "$pdx_wall" "$pdx_cpu"
for variant in "true" "sh -c true"; do
  # shellcheck disable=SC2086
  read -r wall cpu < <(measure pdsh -R exec -f "$FANOUT" -w "$hosts" $variant)
  printf '%-34s %8s %8s   pdx/pdsh: wall %.2f cpu %.2f\n' "pdsh -R exec $variant" "$wall" "$cpu" \
    "$(echo "$pdx_wall / $wall" | bc -l)" "$(echo "$pdx_cpu / $cpu" | bc -l)"
done

# Streaming output through the prefix sink: 16 hosts each printing `seq 1 1000000` (110 MB).
printf '\n%-34s %8s %8s\n' "16 hosts x seq 1 1000000" "wall s" "cpu s"
read -r pdx_wall pdx_cpu < <(measure "$PDX" -R exec -n -w 'h[1-16]' 'seq 1 1000000')
printf '%-34s %8s %8s\n' "pdx -R exec" "$pdx_wall" "$pdx_cpu"
read -r wall cpu < <(measure pdsh -R exec -w 'h[1-16]' seq 1 1000000)
printf '%-34s %8s %8s   pdx/pdsh: wall %.3f cpu %.3f\n' "pdsh -R exec" "$wall" "$cpu" \
  "$(echo "$pdx_wall / $wall" | bc -l)" "$(echo "$pdx_cpu / $cpu" | bc -l)"
