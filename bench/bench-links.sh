#!/usr/bin/env bash
# Copies over real, rate-limited links (scripts/netns-cluster.sh: a namespace per host, every
# link BENCH_RATE each way, this machine's one link too): 25 MB (BENCH_SIZE_MB) to 4, 8 and 16
# hosts (BENCH_HOSTS) with pdx push, pdx push --relay and clush --copy, against one scp of the
# same file. Over a star every copy crosses this machine's link, so N hosts take about N times one
# copy; a relay (host to host, a chain; from 16 hosts on a tree of fan-out 4 too) sends it once
# from here; and a chain of the most hosts with one host killed at about a third of the
# transfer, bridged (killed-16: target 2x one copy; here 1.54 s against relay-16's 1.45 s and
# one scp's 1.27 s, 1.21x), and with its head killed, bridged around by pdx (headkilled-16).
# Wall time, the tool's CPU (user+sys, its children's too) and peak RSS, and for pdx
# its agents' on the hosts (bench/lib/timed_agent.sh, each agent run through /usr/bin/time: CPU
# over all hosts, the most one host spent, one agent's largest peak RSS; per agent, so that what
# runs in the hosts' namespaces counts, which /proc/stat-based figures may miss). And the whole
# machine's CPU meanwhile (machine_s: every host's sshd, shells and agents, the kernel's network
# between the namespaces) and the wall over it spread on the cores (x_floor): every host here
# shares this machine's cores, so a row near 1 is bound by their CPU, not by the links.
#
#   bench/bench-links.sh [-p PDX] [-c CLUSTER_DIR]
# BENCH_RUNS: runs of each, the fastest shown (the machine's other load only slows a run down).
# cold-relay-8 / warm-relay-8: push --relay with the self-deployed agent, removed from the hosts
# first (first contact: it is uploaded) or cached (target: cold within 1.3x of warm);
# true-N / small-N / small-pdcp-N / small-clush-N: a run's fixed cost on the most hosts (pdx
# true; a 6-byte file by pdx push, pdcp and clush --copy).
# BENCH_FIRST_CONTACT_ONLY=1: the first-contact rows and one scp only. BENCH_ALL_RUNS=1: every run
# shown too.
# Measured (5 runs, median, load 7 on 2 cores): with pdx's copy without symbols as the agent
# (1.29 MB gzip-compressed per host) cold 2.13 s against warm 1.55 s (1.37x); with pdx-static
# (4.39 MB per host) 3.30 s against 1.55 s (2.13x); one scp 1.44 s. Before (the 101 MB pdx sent
# whole): 46.8 s against 6.9 s. With pdx-static beside pdx sent only where pdx cannot run (9
# runs, median; 1.41 MB per host): cold 2.09 s against warm 1.62 s (1.29x), one scp 1.41 s, at
# load 8; 2.72 s against 2.15 s (1.27x) at load 11. xz instead of
# gzip (0.91 MB per host, the x86 filter) was slower cold here (7 runs: 3.97 s against gzip's
# 2.47 s): xz -dc takes 90 ms of CPU on each host against gzip's 25, and the hosts share this
# machine's 2 cores.
# With libarchive linked into pdx (2.07 MB per host, was 1.82 MB; medians of 20 interleaved runs,
# load 4.4-6.6): cold 4.67 s against warm 2.16 s (2.17x), before 4.66 s against 2.33 s (2.00x):
# the upload path, not the size (bench/README.md).
# Root only (namespaces). Needs: clustershell. Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/timed_agent.sh"
source "$(dirname "$0")/lib/cpu.sh"
[[ $CLUSTER == /tmp/pdx-bench-cluster ]] && CLUSTER=/tmp/pdx-bench-links
sizes=${BENCH_HOSTS:-4 8 16}
mb=${BENCH_SIZE_MB:-25}
rate=${BENCH_RATE:-200mbit}
runs=${BENCH_RUNS:-1}
[[ $EUID -eq 0 ]] || { echo "bench-links: needs root (network namespaces)" >&2; exit 1; }
command -v clush > /dev/null || { echo "bench-links: clush is missing (apt-get install clustershell)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-links: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

most=0
for n in $sizes; do (( n > most )) && most=$n; done
cluster="$here/../scripts/netns-cluster.sh"
"$cluster" start "$CLUSTER" "$most" "$rate"
work=$(mktemp -d)
trap '"$cluster" stop "$CLUSTER"; rm -rf "$work"' EXIT
chmod 0755 "$work"
head -c $((mb * 1000 * 1000)) /dev/urandom > "$work/data"
chmod 0644 "$work/data"
timed_agent "$work" "$PDX"  # pdx's rows pass --agent "$AGENT"
config=$CLUSTER/ssh_config
in_client() { "$cluster" run "$CLUSTER" "$@"; }

run() {  # run LABEL HOSTS CMD...: CMD in the client's namespace, the fastest of BENCH_RUNS
  local label=$1 hosts=$2 i busy  # (whose load was the least): LABEL wall cpu rss agents (3
  # columns) machine
  shift 2
  for ((i = 0; i < runs; i++)); do
    in_client "$PDX" -F "$config" -w "$hosts" "rm -rf bench-links-* ${before:-}" > /dev/null
    agents_cpu > /dev/null
    busy=$(busy_cpu)
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$cluster" run "$CLUSTER" "$@" > /dev/null 2> "$work/err" ||
      { echo "bench-links: $label failed: $(tail -3 "$work/err")" >&2; return; }
    busy=$(echo "$(busy_cpu) - $busy" | bc)
    read -r wall user sys rss < "$work/time"
    echo "$label $wall $(echo "$user + $sys" | bc) $((rss / 1024)) $(agents_cpu) $busy"
  done | tee -a "$work/all" | sort -k2,2n | head -1 >> "$work/runs"
}

all=$(head -n "$most" "$CLUSTER/hostfile" | paste -sd,)
in_client "$PDX" -F "$config" -w "$all" push "$here/../README.md" bench-links-warm/ > /dev/null  # deploy
# The self-deployed agent's directory on the hosts (the one the push above used last).
agent_dir=$(in_client "$PDX" -F "$config" -w "$(head -1 "$CLUSTER/hostfile")" -N \
  'ls -t .cache/pdx/*/used | head -n 1' | sed 's|/used$||')
[[ $agent_dir =~ ^\.cache/pdx/[0-9a-f]{64}$ ]] || { echo "bench-links: no agent deployed" >&2; exit 1; }
: > "$work/runs"
run scp-one "$(head -1 "$CLUSTER/hostfile")" scp -q -F "$config" "$work/data" "$(head -1 "$CLUSTER/hostfile"):bench-links-scp"
# First contact (cold: the self-deployed agent removed from the hosts first, so push uploads it)
# against the same push with it cached (warm), with pdx's own agent (no --agent: agents_s 0).
for n in $sizes; do
  (( n == 8 || ${BENCH_FIRST_CONTACT_ALL:-0} )) || continue
  hosts=$(head -n "$n" "$CLUSTER/hostfile" | paste -sd,)
  before="$agent_dir" run "cold-relay-$n" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$n" push --relay "$work/data" bench-links-relay/
  run "warm-relay-$n" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$n" push --relay "$work/data" bench-links-relay/
done
[[ -n ${BENCH_FIRST_CONTACT_ONLY:-} ]] && sizes=
for n in $sizes; do
  hosts=$(head -n "$n" "$CLUSTER/hostfile" | paste -sd,)
  run "pdx-$n" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$n" push --agent "$AGENT" "$work/data" bench-links-pdx/
  run "relay-$n" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$n" push --relay --agent "$AGENT" "$work/data" bench-links-relay/
  (( n >= 16 )) && run "tree4-$n" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$n" push --relay=tree:4 --agent "$AGENT" "$work/data" bench-links-relay/
  run "clush-$n" "$hosts" clush -f "$n" -w "$hosts" -o "-F $config" --copy "$work/data" --dest bench-links-clush-file
done

# A run's fixed cost, on the most hosts: `pdx true`, and a 6-byte file pushed by pdx (its own
# self-deployed agent, as a user runs it), pdcp and clush.
if [[ -n $sizes ]]; then
  hosts=$(head -n "$most" "$CLUSTER/hostfile" | paste -sd,)
  printf 'hello\n' > "$work/small"
  chmod 0644 "$work/small"
  run "true-$most" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$most" true
  run "small-$most" "$hosts" "$PDX" -F "$config" -w "$hosts" -f "$most" push "$work/small" bench-links-small/
  command -v pdcp > /dev/null &&
    run "small-pdcp-$most" "$hosts" env PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS="-F $config" pdcp -f "$most" \
      -w "$hosts" "$work/small" bench-links-small-pdcp
  run "small-clush-$most" "$hosts" clush -f "$most" -w "$hosts" -o "-F $config" --copy "$work/small" \
    --dest bench-links-small-clush
fi

# killed_chain NAME K: a chain of the most hosts with the agent of its K-th host killed at about
# a third of the transfer (once it has written two thirds of the data's size: a forwarding host
# writes each byte twice, into its file and its history; /proc's rchar does not count what it
# receives from its link): the time for the others to complete, bridged around it (the head: by
# pdx, from here). One run: a failed host is the point, not the best of several.
killed_chain() {
  local hosts account out pdx_pid pid got wall user sys busy at=$((mb * 1000 * 1000 * 2 / 3))
  hosts=$(head -n "$most" "$CLUSTER/hostfile" | paste -sd,)
  account=$(printf 'pdx%03d' "$2")
  in_client "$PDX" -F "$config" -w "$hosts" "rm -rf bench-links-*" > /dev/null
  agents_cpu > /dev/null
  busy=$(busy_cpu)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$cluster" run "$CLUSTER" "$PDX" -F "$config" \
    -w "$hosts" -f "$most" push --relay --agent "$AGENT" "$work/data" bench-links-killed/ \
    > "$work/out" 2> "$work/err" &
  pdx_pid=$!
  while kill -0 "$pdx_pid" 2> /dev/null; do
    for pid in $(pgrep -u "$account" -f -- '--relay='); do
      got=$(awk '$1 == "wchar:" {print $2}' "/proc/$pid/io" 2> /dev/null)
      (( ${got:-0} >= at )) && kill -KILL "$pid" && break 2
    done
    sleep 0.02
  done
  wait "$pdx_pid" || true
  busy=$(echo "$(busy_cpu) - $busy" | bc)
  out=$(cat "$work/out")
  # (err also holds the warning of the host that bridged around it)
  # (killed by signal KILL: the agent itself; exit 137: the time(1) it runs under says so)
  [[ $out == *"in 1 file" && $(grep -c -E ': (killed by signal KILL|exit 137)$' "$work/err") -eq 1 ]] ||
    echo "bench-links: $1-$most: not the others complete and one failed: $out $(cat "$work/err")" >&2
  read -r wall user sys rss < <(tail -1 "$work/time")  # after "Command exited with non-zero status"
  echo "$1-$most $wall $(echo "$user + $sys" | bc) $((rss / 1024)) $(agents_cpu) $busy" >> "$work/runs"
}
if (( most >= 4 )) && [[ -z ${BENCH_FIRST_CONTACT_ONLY:-} ]]; then
  killed_chain killed $((most / 2))
  killed_chain headkilled 1
fi

[[ -n ${BENCH_ALL_RUNS:-} ]] && { echo "every run (label wall_s cpu_s rss_MiB ...):"; cat "$work/all"; }
echo "$mb MB over $rate links (this machine's too), best of $runs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-16s %8s %8s %8s %9s %11s %9s %11s %10s %8s\n' run wall_s cpu_s rss_MiB agents_s \
  agent_max_s agent_MiB x_one_copy machine_s x_floor
awk -v cores="$(nproc)" '{ if (NR == 1) one = $2
       printf "%-16s %8.2f %8.2f %8d %9s %11s %9s %11.2f %10.2f %8.2f\n", $1, $2, $3, $4, $5, $6, $7,
              $2 / one, $8, ($8 > 0 ? $2 / ($8 / cores) : 0) }' "$work/runs"
