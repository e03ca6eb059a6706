#!/usr/bin/env bash
# pdx sync against rsync, on the loopback sshd cluster: a 256 MiB file (BENCH_SIZE_MIB) whose
# new version has 64 scattered edits of 40 KiB (1%), to hosts that all hold the old version.
#   1 host:   pdx sync  vs  rsync -I (one delta, one host)
#   16 hosts: pdx sync  vs  pdsh -R exec rsync -I (a delta computed per host) (BENCH_HOSTS);
#             pdx sync --relay too (the delta sent from here once, then host to host)
#   a floor:  every host reads its old file and writes the new one out of it, by cat: what any
#             delta sync makes each do at least, all on this machine's cores and disk; its CPU on
#             the hosts too, which the agents' is compared with (wall times move with the load);
#             and floor-atomic, the copy renamed over the old file as rsync and pdx do
#   a tree:   pdx sync --delete --exclude  vs  pdsh -R exec rsync -a --delete --exclude, on the
#             16 hosts: 2000 files of 4 KiB (BENCH_TREE_FILES), 100 changed and 100 new here,
#             and on each host 100 extras to delete and a cache/ of 100 files that stays
# For each: wall time, CPU (user+sys, its children's too), peak RSS, for pdx its agents' on the
# hosts (bench/lib/timed_agent.sh, each agent run through /usr/bin/time: CPU over all hosts, the
# most one host spent, one agent's largest peak RSS), and bytes sent: rsync's "Total bytes sent";
# pdx's delta as it reports it (per host; a star sends it to each host of the group). Before
# each run every host gets the old version back (pdx push, not timed). Not a test.
#
#   bench/bench-sync.sh [-p PDX] [-c CLUSTER_DIR]
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/timed_agent.sh"
n=${BENCH_HOSTS:-16}
mib=${BENCH_SIZE_MIB:-256}
for tool in pdsh rsync python3; do
  command -v $tool > /dev/null || { echo "bench-sync: $tool is missing (apt-get install pdsh rsync)" >&2; exit 1; }
done
[[ -x $PDX ]] || { echo "bench-sync: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$n"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timed_agent "$work" "$PDX"  # pdx's rows pass --agent "$AGENT"
config=$work/ssh_config
{ printf 'Host *\n  KexAlgorithms curve25519-sha256\n'; cat "$CLUSTER/ssh_config"; } > "$config"
head -n "$n" "$CLUSTER/hostfile" > "$work/hosts"
all=$(paste -sd, "$work/hosts")
one=$(head -n 1 "$work/hosts")
mkdir "$work/old" "$work/new"
head -c $((mib << 20)) /dev/urandom > "$work/old/data"
python3 - "$work/old/data" "$work/new/data" << 'PY'
import os, random, sys
data = bytearray(open(sys.argv[1], 'rb').read())
random.seed(14)
step = len(data) // 64
for i in range(64):  # one 40 KiB edit somewhere in each 64th of the file
    at = i * step + random.randrange(step - 40960)
    data[at:at + 40960] = os.urandom(40960)
open(sys.argv[2], 'wb').write(data)
PY
touch -d '2020-01-01' "$work/old/data"
chmod 0644 "$work/old/data" "$work/new/data"

reset() {  # every host of $1 holds the old version as bench-sync/data
  "$PDX" -F "$config" -w "$1" -f "$n" "rm -rf bench-sync" > /dev/null
  "$PDX" -F "$config" -w "$1" -f "$n" push "$work/old/data" bench-sync/ > /dev/null
  # On disk, as an old version is: the timed run does not share the disk with this writeback, nor
  # wait for it (a file replaced while its pages are being written waits for them when freed).
  sync
}

files=${BENCH_TREE_FILES:-2000}
mkdir -p "$work/tree"
for i in $(seq "$files"); do head -c 4096 /dev/urandom > "$work/tree/f$i"; done
touch -d '2020-01-01' "$work/tree"/f*
cp -a "$work/tree" "$work/tree-old"  # what the hosts hold before each run; tree/ then changes
reset_tree() {  # every host of $1 holds the tree as it was, extras and a cache/ beside
  "$PDX" -F "$config" -w "$1" -f "$n" "rm -rf bench-tree" > /dev/null
  "$PDX" -F "$config" -w "$1" -f "$n" push "$work/tree-old/" bench-tree/ > /dev/null
  "$PDX" -F "$config" -w "$1" -f "$n" 'mkdir -p bench-tree/cache && cd bench-tree &&
    for i in $(seq 100); do echo "$i" > "extra$i"; echo "$i" > "cache/c$i"; done' > /dev/null
  sync  # on disk, as the floor's old version is
}
resets=reset
run() {  # run LABEL HOSTS CMD...: LABEL wall cpu rss-MiB agents (3 columns), the output in
  local label=$1 hosts=$2  # $work/out.LABEL
  shift 2
  "$resets" "$hosts"
  agents_cpu > /dev/null
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$work/out.$label" 2> "$work/err" ||
    { echo "bench-sync: $label failed: $(tail -3 "$work/err")" >&2; return; }
  read -r wall user sys rss < "$work/time"
  echo "$label $wall $(echo "$user + $sys" | bc) $((rss / 1024)) $(agents_cpu)" >> "$work/runs"
}

# pdx reports "N KiB sent" (or MiB) per host: in bytes.
pdx_sent() {
  grep -o '[0-9.]* [KMG]*i*B sent' "$work/out.$1" | head -1 |
    awk '{ m = $2 == "KiB" ? 1024 : $2 == "MiB" ? 1048576 : $2 == "GiB" ? 1073741824 : 1; printf "%d", $1 * m }'
}
rsync_sent() { grep -h 'Total bytes sent' "$work/out.$1" | tr -d , | awk '{ s += $NF } END { print s }'; }

"$PDX" -F "$config" -w "$all" push "$here/../README.md" bench-sync-warm/ > /dev/null  # deploy
: > "$work/runs"
rsh="ssh -F $config"
run pdx-1 "$one" "$PDX" -F "$config" -w "$one" sync --agent "$AGENT" "$work/new/data" bench-sync/
run rsync-1 "$one" rsync -I --stats -e "$rsh" "$work/new/data" "$one:bench-sync/"
run pdx-$n "$all" "$PDX" -F "$config" -w "$all" -f "$n" sync --agent "$AGENT" "$work/new/data" bench-sync/
run pdsh-rsync-$n "$all" pdsh -R exec -f "$n" -w "$all" rsync -I --stats -e "$rsh" "$work/new/data" "%h:bench-sync/"

# The hosts' floor, on this machine's cores and disk shared by all of them: what a delta sync
# makes every host do at least, read its old file (the signatures) and write the new one out of
# it (the patch), here by cat alone (copy_file_range: in the kernel, never hashed), timed as the
# agents are: its CPU is what the agents' is measured against, whatever else the machine runs.
# floor-atomic also puts the copy in the old file's place, by rename, as rsync and pdx do: on
# ext4 that starts the new file's writeback at once (auto_da_alloc) and frees the old file.
floor() {  # floor NAME COMMAND: $work/NAME runs COMMAND on a host, timed
  # shellcheck disable=SC2016 # $SSH_CONNECTION and $$ are the host's, expanded there
  printf '#!/bin/sh\nhost=$(echo "$SSH_CONNECTION" | cut -d" " -f3)\nexec /usr/bin/time -f "%%U %%S %%M" -o "%s/agent-times/${host:-$(id -un)}.$$" sh -c "%s"\n' \
    "$work" "$2" > "$work/$1"
  chmod 0755 "$work/$1"
}
floor floor 'cat bench-sync/data > /dev/null && cat bench-sync/data > bench-sync/copy'
floor floor-atomic \
  'cat bench-sync/data > /dev/null && cat bench-sync/data > bench-sync/.copy && mv bench-sync/.copy bench-sync/data'
run floor-$n "$all" "$PDX" -F "$config" -w "$all" -f "$n" "$work/floor"
run floor-atomic-$n "$all" "$PDX" -F "$config" -w "$all" -f "$n" "$work/floor-atomic"

# pdx sync --relay: the group's one delta from here to the first host, then host to host.
run pdx-relay-$n "$all" "$PDX" -F "$config" -w "$all" -f "$n" sync --relay --agent "$AGENT" "$work/new/data" bench-sync/
for i in $(seq 100); do head -c 4096 /dev/urandom > "$work/tree/f$i"; head -c 4096 /dev/urandom > "$work/tree/new$i"; done
resets=reset_tree
run pdx-tree-$n "$all" "$PDX" -F "$config" -w "$all" -f "$n" sync --agent "$AGENT" --delete --exclude cache/ "$work/tree/" bench-tree/
run pdsh-rsync-tree-$n "$all" pdsh -R exec -f "$n" -w "$all" rsync -a --delete --exclude cache/ -e "$rsh" "$work/tree/" "%h:bench-tree/"
"$PDX" -F "$config" -w "$all" -f "$n" "rm -rf bench-tree" > /dev/null
for i in $(seq "$n"); do  # every host now holds the new version
  cmp -s "$work/new/data" "$(getent passwd "$(printf 'pdx%03d' "$i")" | cut -d: -f6)/bench-sync/data" 2> /dev/null ||
    [[ $EUID -ne 0 ]] || echo "bench-sync: host $i does not hold the new version" >&2
done
"$PDX" -F "$config" -w "$all" -f "$n" "rm -rf bench-sync bench-sync-warm" > /dev/null

echo "pdx sync vs rsync: $mib MiB, 64 edits of 40 KiB, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %8s %8s %8s %8s %10s %10s %14s\n' tool wall cpu rss-MiB agents agent-max \
  agent-MiB bytes-sent
p1=$(pdx_sent pdx-1) r1=$(rsync_sent rsync-1) pn=$(pdx_sent pdx-$n) rn=$(rsync_sent pdsh-rsync-$n)
while read -r label wall cpu rss agents agent_max agent_rss; do
  case $label in
    pdx-1) sent=$p1 ;; rsync-1) sent=$r1 ;; pdx-$n) sent="$((pn * n)) ($pn/host)" ;;
    pdx-relay-$n) sent="$(pdx_sent pdx-relay-$n) (once)" ;;
    *tree* | floor*) sent=- ;; *) sent=$rn ;;
  esac
  printf '%-16s %8s %8s %8s %8s %10s %10s %14s\n' "$label" "$wall" "$cpu" "$rss" "$agents" \
    "$agent_max" "$agent_rss" "$sent"
done < "$work/runs"
wall() { awk -v l="$1" '$1 == l { print $2 }' "$work/runs"; }
echo "1 host:   pdx/rsync bytes $(echo "scale=2; $p1 / $r1" | bc)x, wall $(echo "scale=2; $(wall pdx-1) / $(wall rsync-1)" | bc)x"
echo "$n hosts: pdx/pdsh+rsync bytes $(echo "scale=2; $pn * $n / $rn" | bc)x (one delta: $(echo "scale=3; $pn / $rn" | bc)x), wall $(echo "scale=2; $(wall pdx-$n) / $(wall pdsh-rsync-$n)" | bc)x"
echo "a tree:   pdx sync --delete/pdsh+rsync --delete wall $(echo "scale=2; $(wall pdx-tree-$n) / $(wall pdsh-rsync-tree-$n)" | bc)x ($files files, 200 to send, 100 to delete per host)"
echo "$n hosts, --relay: pdx/pdsh+rsync bytes from here $(echo "scale=3; $(pdx_sent pdx-relay-$n) / $rn" | bc)x, wall $(echo "scale=2; $(wall pdx-relay-$n) / $(wall pdsh-rsync-$n)" | bc)x"
agents() { awk -v l="$1" '$1 == l { print $5 }' "$work/runs"; }
for f in floor floor-atomic; do
  echo "$n hosts, $f: wall $(wall $f-$n) s, pdx $(echo "scale=2; $(wall pdx-$n) / $(wall $f-$n)" | bc)x," \
    "--relay $(echo "scale=2; $(wall pdx-relay-$n) / $(wall $f-$n)" | bc)x, pdsh+rsync $(echo "scale=2; $(wall pdsh-rsync-$n) / $(wall $f-$n)" | bc)x;" \
    "the hosts' CPU (agents or" \
    "cats; what else runs here does not count) $(agents $f-$n) s, pdx $(echo "scale=2; $(agents pdx-$n) / $(agents $f-$n)" | bc)x," \
    "--relay $(echo "scale=2; $(agents pdx-relay-$n) / $(agents $f-$n)" | bc)x"
done
