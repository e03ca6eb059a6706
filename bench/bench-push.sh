#!/usr/bin/env bash
# pdx push against the tools people use to copy a file to many hosts, on the loopback sshd
# cluster: 256 MiB of random data to 16 hosts (BENCH_SIZE_MIB, BENCH_HOSTS), each tool into a
# fresh directory of every host's home; pdx twice, as a star from here and with --relay (host to
# host). For each: wall time, CPU (user+sys of the tool and its children), the tool's own peak
# RSS, the CPU of pdx's agents on the hosts (each run through /usr/bin/time by --agent,
# bench/lib/timed_agent.sh: all hosts, the most one host spent, and one agent's peak RSS), the CPU
# the whole machine spent meanwhile (/proc/stat: user, nice, system, irq, softirq; so sshd, the
# hosts' side and anything else running are in it), and the wall-time floor that sets:
# machine CPU / cores, then the 1-minute load average as the run began (another load inflates
# both; on a shared machine the CPU of pdx and its agents is what stays put).
# pdx's agent is deployed by a warm-up push first (once per host and pdx version), as in use.
#
#   bench/bench-push.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (pdcp), clustershell (Debian packages). Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/timed_agent.sh"
n=${BENCH_HOSTS:-16}
mib=${BENCH_SIZE_MIB:-256}
for tool in pdcp clush; do
  command -v $tool > /dev/null || { echo "bench-push: $tool is missing (apt-get install pdsh clustershell)" >&2; exit 1; }
done
[[ -x $PDX ]] || { echo "bench-push: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }
PDX=$(realpath "$PDX")

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
timed_agent "$work" "$PDX"

machine_ticks() {  # CPU ticks the machine spent since boot, all cores: user nice system irq softirq
  awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# The remote directory each run writes into, fresh: bench-push-TOOL in every home.
remote_dir() { echo "bench-push-$1"; }
clean() {
  "$PDX" -F "$config" -w "$hosts" "rm -rf bench-push-*" > /dev/null
}

run() {  # run LABEL CMD...
  local label=$1 before after agents load
  shift
  clean
  agents_cpu > /dev/null
  sleep 0.3
  load=$(cut -d' ' -f1 /proc/loadavg)
  before=$(machine_ticks)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2> "$work/err" ||
    { echo "bench-push: $label failed: $(tail -3 "$work/err")" >&2; return; }
  after=$(machine_ticks)
  agents=$(agents_cpu)
  read -r wall user sys rss < "$work/time"
  echo "$label $wall $(echo "$user + $sys" | bc) $((rss / 1024)) $agents" \
    "$(echo "($after - $before) / $(getconf CLK_TCK)" | bc -l) $load" >> "$work/runs"
}

pdx=("$PDX" -F "$config" -w "$hosts" -f "$n")
"${pdx[@]}" push --agent "$AGENT" "$here/../README.md" bench-push-warm/ > /dev/null
: > "$work/runs"
run pdx "${pdx[@]}" push --agent "$AGENT" "$work/data" "$(remote_dir pdx)/"
run pdx-relay "${pdx[@]}" push --relay --agent "$AGENT" "$work/data" "$(remote_dir relay)/"
run pdcp env PDSH_SSH_ARGS="-F $config -x -a %h" \
  pdcp -R ssh -f "$n" -w "$hosts" "$work/data" "$(remote_dir pdcp)"
run clush clush -f "$n" -w "$hosts" -o "-F $config" --copy "$work/data" --dest "$(remote_dir clush)"
clean

echo "$mib MiB to $n hosts, one run each ($(nproc) cores)"
printf '%-9s %7s %7s %8s %9s %10s %10s %9s %8s %5s\n' tool wall_s cpu_s rss_MiB agents_s \
  agent_max_s agent_MiB machine_s floor_s load
awk -v cores="$(nproc)" '
  { printf "%-9s %7.2f %7.2f %8d %9s %10s %10s %9.2f %8.2f %5.2f\n", $1, $2, $3, $4, $5, $6, $7, $8, $8 / cores, $9
    wall[$1] = $2; order[++k] = $1 }
  END { for (i = 2; i <= k; i++) printf "  %-9s wall x%.2f of pdx\n", order[i], wall[order[i]] / wall["pdx"] }' \
  "$work/runs"
