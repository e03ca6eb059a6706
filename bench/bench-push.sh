#!/usr/bin/env bash
# pdx push against the tools people use to copy a file to many hosts, on the loopback sshd
# cluster: 256 MiB of random data to 16 hosts (BENCH_SIZE_MIB, BENCH_HOSTS), each tool into a
# fresh directory of every host's home; pdx three times: as a star from here over its direct
# links to the agents (the default), as a star through each host's ssh channel (--data-via ssh),
# and with --relay (host to host). The tools take turns, BENCH_RUNS rounds (3), and the medians
# are shown, with each tool's wall against pdx's. For each: wall time, CPU (user+sys of the tool and its children), the tool's own peak
# RSS, the CPU of pdx's agents on the hosts (each run through /usr/bin/time by --agent,
# bench/lib/timed_agent.sh: all hosts, the most one host spent, and one agent's peak RSS), the CPU
# the whole machine spent meanwhile (/proc/stat: user, nice, system, irq, softirq; so sshd, the
# hosts' side and anything else running are in it), and the wall-time floor that sets:
# machine CPU / cores, then the 1-minute load average as the run began (another load inflates
# both; on a shared machine the CPU of pdx and its agents is what stays put).
# pdx's agent is deployed by a warm-up push first (once per host and pdx version), as in use.
# BENCH_FILES=N sends a directory of N files sharing BENCH_SIZE_MIB instead (many small files:
# BENCH_FILES=2000 BENCH_SIZE_MIB=8 is 4 KiB each), pdcp with -r, and adds what people pipe
# by hand: `tar c | ssh host tar x` to every host at once (pdsh -R exec).
#
#   bench/bench-push.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (pdcp), clustershell (Debian packages). Not a test: nothing here is asserted.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/timed_agent.sh"
source "$(dirname "$0")/lib/cpu.sh"
n=${BENCH_HOSTS:-16}
rounds=${BENCH_RUNS:-3}
mib=${BENCH_SIZE_MIB:-256}
files=${BENCH_FILES:-}
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
if [[ -n $files ]]; then
  mkdir "$work/data"
  each=$(((mib << 20) / files))
  for i in $(seq "$files"); do
    head -c "$each" /dev/urandom > "$work/data/f$i"
  done
  chmod -R a+rX "$work/data"
  what="$files files of $each bytes"
  recursive=(-r)
else
  head -c $((mib << 20)) /dev/urandom > "$work/data"
  chmod 0644 "$work/data"
  what="$mib MiB"
  recursive=()
fi
timed_agent "$work" "$PDX"

# The remote directory each run writes into, fresh: bench-push-TOOL in every home.
remote_dir() { echo "bench-push-$1"; }
# pdcp -r wants its target directory there (else it says so, and exits 0).
clean() {
  "$PDX" -F "$config" -w "$hosts" "rm -rf bench-push-*${files:+ && mkdir $(remote_dir pdcp)}" > /dev/null
}

run() {  # run LABEL CMD...
  local label=$1 before after agents load
  shift
  clean
  agents_cpu > /dev/null
  sleep 0.3
  load=$(cut -d' ' -f1 /proc/loadavg)
  before=$(busy_cpu)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2> "$work/err" ||
    { echo "bench-push: $label failed: $(tail -3 "$work/err")" >&2; return; }
  after=$(busy_cpu)
  agents=$(agents_cpu)
  read -r wall user sys rss < "$work/time"
  echo "$label $wall $(echo "$user + $sys" | bc) $((rss / 1024)) $agents" \
    "$(echo "$after - $before" | bc) $load" >> "$work/runs"
}

pdx=("$PDX" -F "$config" -w "$hosts" -f "$n")
"${pdx[@]}" push --agent "$AGENT" "$here/../README.md" bench-push-warm/ > /dev/null
: > "$work/runs"
for _ in $(seq "$rounds"); do
  run pdx "${pdx[@]}" push --agent "$AGENT" "$work/data" "$(remote_dir pdx)/"
  run pdx-ssh "${pdx[@]}" push --data-via ssh --agent "$AGENT" "$work/data" "$(remote_dir ssh)/"
  run pdx-relay "${pdx[@]}" push --relay --agent "$AGENT" "$work/data" "$(remote_dir relay)/"
  run pdcp env PDSH_SSH_ARGS="-F $config -x -a %h" \
    pdcp -R ssh -f "$n" "${recursive[@]}" -w "$hosts" "$work/data" "$(remote_dir pdcp)"
  run clush clush -f "$n" -w "$hosts" -o "-F $config" --copy "$work/data" --dest "$(remote_dir clush)"
  [[ -z $files ]] || run tar-ssh pdsh -R exec -f "$n" -w "$hosts" sh -c \
    "tar -C '$work' -c data | ssh -F '$config' %h 'mkdir -p $(remote_dir tar) && tar -x -C $(remote_dir tar)'"
done
clean

echo "$what to $n hosts, $rounds rounds, the tools taking turns ($(nproc) cores)"
printf '%-9s %7s %7s %8s %9s %10s %10s %9s %8s %5s\n' tool wall_s cpu_s rss_MiB agents_s \
  agent_max_s agent_MiB machine_s floor_s load
cat "$work/runs"
echo "medians:"
# Each column's median over a tool's rounds (a column of "-" stays "-").
awk -v cores="$(nproc)" '
  function median(tool, c,    k, i, j, t, v) {
    k = runs[tool]
    for (i = 1; i <= k; i++) v[i] = col[tool, i, c]
    if (v[1] == "-") return "-"
    for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  { if (!runs[$1]++) order[++tools] = $1
    for (c = 2; c <= 9; c++) col[$1, runs[$1], c] = $c }
  END {
    for (i = 1; i <= tools; i++) {
      t = order[i]; wall[t] = median(t, 2)
      printf "%-9s %7.2f %7.2f %8d %9s %10s %10s %9.2f %8.2f %5.2f\n", t, wall[t], median(t, 3),
        median(t, 4), median(t, 5), median(t, 6), median(t, 7), median(t, 8), median(t, 8) / cores, median(t, 9)
    }
    for (i = 2; i <= tools; i++) printf "  %-9s wall x%.2f of pdx\n", order[i], wall[order[i]] / wall["pdx"]
    for (i = 2; i <= tools; i++) if (order[i] != "pdx-relay" && order[i] != "pdx-ssh")
      printf "  pdx wall x%.2f of %s\n", wall["pdx"] / wall[order[i]], order[i]
  }' "$work/runs"
