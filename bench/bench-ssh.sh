#!/usr/bin/env bash
# pdx's ssh engine against the tools people use today, on the loopback sshd cluster:
#   hostname on 64, 256, 512 hosts at fan-out = hosts, and 16 hosts each printing
#   `seq 1 1000000` (110 MB of `host: line` output, written to a file).
# For each: wall time, client CPU (user+sys of the tool's whole process tree, children
# included), peak summed RSS of that tree (sampled every 20 ms), and the ratio to pdx; and the
# CPU the sshd side spent meanwhile, with the wall-time floor it sets on this machine:
# (sshd CPU + client CPU) / cores.
# Every tool gets the same ssh options (the cluster's ssh_config plus KexAlgorithms
# curve25519-sha256), so this compares the tools, not the key exchange.
#
#   bench/bench-ssh.sh [-p PDX] [-c CLUSTER_DIR] [SIZES...]     (default sizes: 64 256 512)
#   BENCH_STREAM=0 skips the streaming run (clush takes minutes there).
# Needs: pdsh, clustershell, pssh (Debian packages). Not a test: nothing here is asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PDX=${PDX:-$here/../build/pdx}
CLUSTER=${BENCH_CLUSTER:-/tmp/pdx-bench-cluster}
while getopts p:c: opt; do
  case $opt in p) PDX=$OPTARG ;; c) CLUSTER=$OPTARG ;; *) exit 2 ;; esac
done
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
        peak = max(peak, tree_rss(proc.pid)); time.sleep(0.02)
wall = time.monotonic() - start
print(f'{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f} {peak / 2**20:.1f}')
PY

# CPU seconds of the cluster's sshd processes so far: the listeners' own and their reaped
# children's (every connection's sshd and the commands it ran).
sshd_cpu() {
  local pid total=0 ticks
  for pid in $(cat "$CLUSTER"/sshd.*.pid); do
    ticks=$(awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$pid/stat")
    total=$((total + ticks))
  done
  echo "$total $(getconf CLK_TCK)" | awk '{ printf "%.2f", $1 / $2 }'
}

run() {  # run LABEL N OUT CMD...: one measurement, one table row
  local label=$1 n=$2 out=$3; shift 3
  local wall cpu rss lines before after
  before=$(sshd_cpu)
  read -r wall cpu rss < <(python3 "$work/measure.py" "$out" "$@")
  sleep 0.3  # the last connections' sshd processes reaped
  after=$(sshd_cpu)
  lines=$(wc -l < "$out")
  # floor: the wall time if client and servers kept every core busy and nothing else ran
  printf '%-14s %6s %9s %9s %10s %9s %9s %8s\n' "$label" "$n" "$wall" "$cpu" "$rss" "$lines" \
    "$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.2f", a - b }')" \
    "$(awk -v a="$after" -v b="$before" -v c="$cpu" -v n="$(nproc)" \
      'BEGIN { printf "%.2f", (a - b + c) / n }')"
  echo "$label $wall $cpu $rss" >> "$work/rows"
}

tools() {  # tools N CMD: every tool on the first N hosts running CMD
  local n=$1 cmd=$2
  head -n "$n" "$CLUSTER/hostfile" > "$work/hosts"
  run pdx "$n" "$work/out" "$PDX" -F "$config" -w "^$work/hosts" -f "$n" -t 60 "$cmd"
  run pdsh "$n" "$work/out" env PDSH_SSH_ARGS="-F $config -x -a %h" \
    pdsh -R ssh -f "$n" -t 60 -w "^$work/hosts" "$cmd"
  run clush "$n" "$work/out" clush -f "$n" --hostfile "$work/hosts" -o "-F $config" "$cmd"
  run parallel-ssh "$n" "$work/out" parallel-ssh -h "$work/hosts" -p "$n" -t 0 \
    -x "-F $config" -i "$cmd"
}

ratios() {  # one line: each tool's wall, CPU and RSS as a multiple of pdx's
  awk '$1 == "pdx" { w = $2; c = $3; r = $4 }
       $1 != "pdx" { printf "  %-12s wall x%.1f  cpu x%.1f  rss x%.1f\n", $1, $2 / (w ? w : 0.01), $3 / (c ? c : 0.01), $4 / (r ? r : 0.1) }' "$work/rows"
  : > "$work/rows"
}

printf '%-14s %6s %9s %9s %10s %9s %9s %8s\n' tool hosts wall_s cpu_s rss_MiB lines sshd_cpu floor_s
: > "$work/rows"
for n in "${SIZES[@]}"; do
  tools "$n" hostname
  ratios
done
[[ ${BENCH_STREAM:-1} == 0 ]] && exit 0
echo "16 hosts x seq 1 1000000 (output to a file):"
tools 16 'seq 1 1000000'
ratios
