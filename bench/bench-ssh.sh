#!/usr/bin/env bash
# pdx's ssh engine against the tools people use today, on the loopback sshd cluster:
#   hostname on 64, 256, 512 hosts at fan-out = hosts, and 16 hosts each printing
#   `seq 1 1000000` (110 MB of `host: line` output, written to a file).
# For each: wall time, client CPU (user+sys of the tool's whole process tree, children
# included), peak summed RSS of that tree (sampled every 50 ms; for one process, its own peak),
# and the ratio to pdx; and the CPU the sshd side spent meanwhile, with the wall-time floor it
# sets on this machine: (sshd CPU + client CPU) / cores; and the CPU everything else on the
# machine used meanwhile (other_cpu: this script's RSS sampling, kernel threads, agents), which
# the floor leaves out. The hostname rows are the best of BENCH_RUNS runs (default 3; the tools
# take turns, so a slow spell of the machine hits them all): wall, CPU and sshd CPU their least,
# RSS its most. The streaming rows are one run (clush takes minutes there).
# Every tool gets the same ssh options (the cluster's ssh_config plus KexAlgorithms
# curve25519-sha256), so this compares the tools, not the key exchange.
#
#   bench/bench-ssh.sh [-p PDX] [-c CLUSTER_DIR] [SIZES...]     (default sizes: 64 256 512)
#   BENCH_STREAM=0 skips the streaming run (clush takes minutes there).
# Needs: pdsh, clustershell, pssh (Debian packages). Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/cpu.sh"
shift $((OPTIND - 1))
SIZES=("${@:-64 256 512}")
read -ra SIZES <<< "${SIZES[*]}"
max=0; for n in "${SIZES[@]}"; do (( n > max )) && max=$n; done
(( max >= 16 )) || max=16

for tool in pdsh clush parallel-ssh; do
  command -v $tool > /dev/null || { echo "bench-ssh: $tool is missing (apt-get install pdsh clustershell pssh)" >&2; exit 1; }
done
[[ -x $PDX ]] || { echo "bench-ssh: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$max"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=$work/ssh_config
{ printf 'Host *\n  KexAlgorithms curve25519-sha256\n'; cat "$CLUSTER/ssh_config"; } > "$config"

# measure OUT CMD...: runs CMD (stdout to OUT), prints "wall cpu rss_mib".
cat > "$work/measure.py" <<'PY'
import os, sys, time, subprocess
out, cmd = sys.argv[1], sys.argv[2:]
def tree_rss(root):
    kids, rss = {}, {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            with open(f'/proc/{pid}/stat') as f: st = f.read().rsplit(')', 1)[1].split()
            kids.setdefault(int(st[1]), []).append(int(pid))
            rss[int(pid)] = int(st[21]) * os.sysconf('SC_PAGE_SIZE')
        except (OSError, IndexError, ValueError): pass
    total, pending = 0, [root]
    while pending:
        p = pending.pop(); total += rss.get(p, 0); pending += kids.get(p, [])
    return total
start = time.monotonic()
with open(out, 'wb') as sink:
    proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid: break
        # Every 50 ms: reading all of /proc costs CPU too, and the machine is saturated.
        peak = max(peak, tree_rss(proc.pid)); time.sleep(0.05)
wall = time.monotonic() - start
peak = max(peak, ru.ru_maxrss * 1024)  # exact for a single process: its own peak
print(f'{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f} {peak / 2**20:.1f}')
PY

run() {  # run LABEL N OUT CMD...: one measurement, kept in $work/runs
  local label=$1 n=$2 out=$3; shift 3
  local wall cpu rss before after busy_before busy_after
  before=$(sshd_cpu)
  busy_before=$(busy_cpu)
  read -r wall cpu rss < <(python3 "$work/measure.py" "$out" "$@")
  sessions_ended
  after=$(sshd_cpu)
  busy_after=$(busy_cpu)
  echo "$label $n $wall $cpu $rss $(wc -l < "$out") $(awk -v a="$after" -v b="$before" \
    -v ba="$busy_after" -v bb="$busy_before" -v c="$cpu" \
    'BEGIN { printf "%.2f %.2f", a - b, ba - bb - (a - b) - c }')" >> "$work/runs"
}

tools() {  # tools N CMD RUNS: every tool on the first N hosts running CMD, RUNS times in turn
  local n=$1 cmd=$2 runs=$3 r
  head -n "$n" "$CLUSTER/hostfile" > "$work/hosts"
  for ((r = 0; r < runs; r++)); do
    run pdx "$n" "$work/out" "$PDX" -F "$config" -w "^$work/hosts" -f "$n" -t 60 "$cmd"
    run pdsh "$n" "$work/out" env PDSH_SSH_ARGS="-F $config -x -a %h" \
      pdsh -R ssh -f "$n" -t 60 -w "^$work/hosts" "$cmd"
    run clush "$n" "$work/out" clush -f "$n" --hostfile "$work/hosts" -o "-F $config" "$cmd"
    run parallel-ssh "$n" "$work/out" parallel-ssh -h "$work/hosts" -p "$n" -t 0 \
      -x "-F $config" -i "$cmd"
  done
}

report() {  # a row per tool (the best of its runs), then each tool as a multiple of pdx
  # floor: the wall time if client and servers kept every core busy and nothing else ran
  awk -v cores="$(nproc)" '
    function least(a, b) { return a == "" || b < a ? b : a }
    !($1 in wall) { order[++tools] = $1 }
    { n[$1] = $2; wall[$1] = least(wall[$1], $3); cpu[$1] = least(cpu[$1], $4)
      rss[$1] = $5 > rss[$1] ? $5 : rss[$1]; lines[$1] = $6; sshd[$1] = least(sshd[$1], $7)
      other[$1] = least(other[$1], $8 < 0 ? 0 : $8) }
    END {
      for (i = 1; i <= tools; i++) {
        t = order[i]
        printf "%-14s %6s %9.2f %9.2f %10.1f %9s %9.2f %8.2f %9.2f\n", t, n[t], wall[t], cpu[t], \
          rss[t], lines[t], sshd[t], (sshd[t] + cpu[t]) / cores, other[t]
      }
      for (i = 2; i <= tools; i++) {
        t = order[i]
        printf "  %-12s wall x%.1f  cpu x%.1f  rss x%.1f\n", t, wall[t] / (wall["pdx"] ? wall["pdx"] : 0.01), \
          cpu[t] / (cpu["pdx"] ? cpu["pdx"] : 0.01), rss[t] / (rss["pdx"] ? rss["pdx"] : 0.1)
      }
    }' "$work/runs"
  : > "$work/runs"
}

runs=${BENCH_RUNS:-3}
echo "hostname: best of $runs runs each"
printf '%-14s %6s %9s %9s %10s %9s %9s %8s %9s\n' tool hosts wall_s cpu_s rss_MiB lines sshd_cpu floor_s \
  other_cpu
: > "$work/runs"
for n in "${SIZES[@]}"; do
  tools "$n" hostname "$runs"
  report
done
[[ ${BENCH_STREAM:-1} == 0 ]] && exit 0
echo "16 hosts x seq 1 1000000 (output to a file), one run each:"
tools 16 'seq 1 1000000' 1
report
