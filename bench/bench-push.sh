#!/usr/bin/env bash
# pdx push against the tools people use to copy a file to many hosts, on the loopback sshd
# cluster: 256 MiB of random data to 16 hosts (BENCH_SIZE_MIB, BENCH_HOSTS), each tool into a
# fresh directory of every host's home. For each: wall time, CPU (user+sys of the tool and its
# children), the tool's own peak RSS, and the CPU the sshd side spent meanwhile, with the
# wall-time floor they set on this machine: (sshd CPU + client CPU) / cores. pdx's agent is
# deployed by a warm-up push first (once per host and pdx version), as in use.
#
#   bench/bench-push.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (pdcp), clustershell (Debian packages). Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/cpu.sh"
n=${BENCH_HOSTS:-16}
mib=${BENCH_SIZE_MIB:-256}
for tool in pdcp clush; do
  command -v $tool > /dev/null || { echo "bench-push: $tool is missing (apt-get install pdsh clustershell)" >&2; exit 1; }
done
[[ -x $PDX ]] || { echo "bench-push: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$n"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"  # the hosts' accounts read the source (pdcp runs pdcp there)
config=$work/ssh_config
{ printf 'Host *\n  KexAlgorithms curve25519-sha256\n'; cat "$CLUSTER/ssh_config"; } > "$config"
head -n "$n" "$CLUSTER/hostfile" > "$work/hosts"
hosts=$(paste -sd, "$work/hosts")
head -c $((mib << 20)) /dev/urandom > "$work/data"
chmod 0644 "$work/data"

# The remote directory each run writes into, fresh: bench-push-TOOL in every home.
remote_dir() { echo "bench-push-$1"; }
clean() {
  "$PDX" -F "$config" -w "$hosts" "rm -rf bench-push-*" > /dev/null
}

run() {  # run LABEL CMD...
  local label=$1 before after
  shift
  clean
  before=$(sshd_cpu)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2> "$work/err" ||
    { echo "bench-push: $label failed: $(tail -3 "$work/err")" >&2; return; }
  sleep 0.3
  after=$(sshd_cpu)
  read -r wall user sys rss < "$work/time"
  echo "$label $wall $(echo "$user + $sys" | bc) $((rss / 1024)) $(echo "$after - $before" | bc)" >> "$work/runs"
}

"$PDX" -F "$config" -w "$hosts" push "$here/../README.md" bench-push-warm/ > /dev/null  # deploy
: > "$work/runs"
run pdx "$PDX" -F "$config" -w "$hosts" -f "$n" push "$work/data" "$(remote_dir pdx)/"
run pdcp env PDSH_SSH_ARGS="-F $config -x -a %h" \
  pdcp -R ssh -f "$n" -w "$hosts" "$work/data" "$(remote_dir pdcp)"
run clush clush -f "$n" -w "$hosts" -o "-F $config" --copy "$work/data" --dest "$(remote_dir clush)"
clean

echo "$mib MiB to $n hosts, one run each ($(nproc) cores)"
printf '%-8s %8s %8s %9s %9s %8s\n' tool wall_s cpu_s rss_MiB sshd_cpu floor_s
awk -v cores="$(nproc)" '
  { printf "%-8s %8.2f %8.2f %9d %9.2f %8.2f\n", $1, $2, $3, $4, $5, ($3 + $5) / cores
    wall[$1] = $2; order[++k] = $1 }
  END { for (i = 2; i <= k; i++) printf "  %-6s wall x%.2f of pdx\n", order[i], wall[order[i]] / wall["pdx"] }' \
  "$work/runs"
