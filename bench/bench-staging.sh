#!/usr/bin/env bash
# A staging day the way it is done today against pdx, on 16 loopback hosts (an account and home
# per host: run as root). The data is a mixed tree generated here, the same on every run:
# BENCH_FILES small files of text (default 30000, 100 B to 8 KiB, in 300 directories) and 4 files
# of 40 MiB of random bytes: 258 MB, 202 MB as tar.zst. Each side packs it into 64 MiB parts of a
# tar.zst and stages them on every host:
#   today                                                  pdx
#   tar -cf - tree | zstd -T0 | split -b 64M -d             pdx pack tree --split 64M
#   pdsh 'mkdir -p DIR'                                     pdx push PARTS DIR --extract
#   pdcp PARTS DIR
#   pdsh 'cat DIR/PARTS | tar --zstd -x -C DIR && rm DIR/PARTS'
#   pdsh 'find DIR -type f | wc -l', and find here          pdx verify DIR --against tree --hash
#   pdsh 'cd DIR && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum', and here
# One run of each (today's first): wall and CPU time per step and in all (CPU: the tool's and its
# children's here, such as pdsh's ssh clients; hosts: the hosts' sshd sessions and what ran in
# them, from /proc, so other work on the machine does not count), today / pdx for packing, staging
# (mkdir + pdcp + tar -x against push --extract: issue 12's benchmark), checking and in all, and
# pdx's peak RSS. The hosts run this pdx as the agent (a copy, push --agent), as a deployed one is
# run, so no deployment is timed; today's writes are synced before pdx runs. The load average is
# printed with the figures: on a loaded machine a tool of many processes (pdcp, pdsh: an ssh each)
# gets a larger share of the CPU than pdx's two threads do.
# Then push --relay --extract (the stream sent once from here, then host to host), and the
# floor: 16 unpacks of the parts here at once, no ssh (each into a directory of its own on the
# hosts' disk): the writes alone, which neither side can beat on this one disk. For those three,
# the CPU floor (the CPU here and on the hosts over the cores) and the cores left idle: the star
# sends an ssh stream per host, whose ssh work here and in the hosts' sshd (about 15 s of
# CPU for 16 hosts: libssh2 1.10 has AES-CTR and an HMAC, no AES-GCM) puts its floor above the
# disk's on 2 cores, where the relay, one stream, stays on the disk's.
# The hosts stage into a journaled ext4 of their own (a loop image here, bind-mounted as each
# host's ~/bench-staging), as a cluster's disks are: this machine's root is ext4 without a journal,
# where creating files within a minute of deleting many (the other side's 480,000) scans past every
# recently deleted inode (ext4's recently_deleted(), 60 s, 360 s while unwritten): whichever side
# ran second paid for the first one's cleanup, up to 8x the unpack's CPU (perf: 86% in
# find_inode_bit).
# Not a test: nothing is asserted, but what each side found on the hosts is printed.
#
#   bench/bench-staging.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (pdsh, pdcp), zstd, root.
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
source "$(dirname "$0")/lib/cpu.sh"
HOSTS=16
FILES=${BENCH_FILES:-30000}
for tool in pdsh pdcp zstd; do
  command -v $tool > /dev/null ||
    { echo "bench-staging: $tool is missing (scripts/deps.sh)" >&2; exit 1; }
done
[[ $EUID -eq 0 ]] || { echo "bench-staging: run as root (an account per host)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-staging: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }

"$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$HOSTS"
work=$(mktemp -d)
chmod 0755 "$work"
hosts=$(head -n "$HOSTS" "$CLUSTER/hostfile" | paste -sd,)
pdx() { "$PDX" -F "$CLUSTER/ssh_config" -w "$hosts" "$@"; }
accounts=$(awk '$1 == "User" { print $2 }' "$CLUSTER/ssh_config" | head -n "$HOSTS")
cleanup() {
  local account
  for account in $accounts; do umount "$(getent passwd "$account" | cut -d: -f6)/bench-staging"; done
  umount "$work/hostfs"
  rm -rf "$work"
} 2> /dev/null
trap cleanup EXIT

python3 - "$work/tree" "$FILES" << 'PY'
import os, random, sys
root, files = sys.argv[1], int(sys.argv[2])
rng = random.Random(12)
words = [f"w{i:04x}" for i in range(4096)]
for i in range(files):
    d = os.path.join(root, "small", f"d{i % 300:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05d}.txt"), "w") as f:
        f.write(" ".join(rng.choices(words, k=rng.randint(20, 1600)))[:rng.randint(100, 8192)])
os.makedirs(os.path.join(root, "big"))
for i in range(4):
    with open(os.path.join(root, "big", f"shard{i}.bin"), "wb") as f:
        f.write(rng.randbytes(40 << 20))
PY
chmod -R a+rX "$work"
count=$(find "$work/tree" -type f | wc -l)
bytes=$(du -sb "$work/tree" | cut -f1)

# The hosts' disk: room for every host's tree and parts, written out now (no lazy init during the
# runs), blocks given back to this machine's disk as they are freed.
truncate -s $((HOSTS * bytes * 5 / 2 / 1048576 + 1024))M "$work/hosts.img"
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$work/hosts.img"
mkdir "$work/hostfs"
mount -o loop,discard "$work/hosts.img" "$work/hostfs"
for account in $accounts; do
  home=$(getent passwd "$account" | cut -d: -f6)
  mkdir -p "$work/hostfs/$account" "$home/bench-staging"
  chown "$account:" "$work/hostfs/$account"
  mount --bind "$work/hostfs/$account" "$home/bench-staging"
done
mkdir "$work/today" "$work/pdx"

pdsh_run() {
  PDSH_SSH_ARGS="-F $CLUSTER/ssh_config -x -a %h" pdsh -R ssh -f "$HOSTS" -w "$hosts" "$@"
}
pdcp_run() {
  PDSH_SSH_ARGS="-F $CLUSTER/ssh_config -x -a %h" pdcp -R ssh -f "$HOSTS" -w "$hosts" "$@"
}
hash_pipeline='find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum'
local_hash() { (cd "$work/tree" && eval "$hash_pipeline"); }
export -f pdsh_run pdcp_run local_hash
export CLUSTER HOSTS hosts work hash_pipeline

# The machine's idle CPU seconds so far (idle and iowait, every core), from /proc/stat.
idle_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.2f", ($5 + $6) / hz; exit }' /proc/stat
}

# step SIDE NAME CMD...: runs CMD once, its output to $work/SIDE.NAME.out; appends
# "SIDE NAME wall cpu rss_MiB hosts_cpu idle_cpu" to $work/steps (CMD's CPU, its children's here
# included; the hosts': their sshd sessions and what ran in them, such as tar or pdx's agent; the
# machine's cores idle while CMD ran, so that a step that kept them busy shows as CPU-bound).
step() {
  local side=$1 name=$2 wall user sys rss hosts_before idle_before
  shift 2
  hosts_before=$(sshd_cpu)
  idle_before=$(idle_cpu)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$work/$side.$name.out" 2>&1 ||
    echo "bench-staging: $side $name failed: $(tail -3 "$work/$side.$name.out")" >&2
  read -r wall user sys rss < <(tail -n 1 "$work/time")  # after "Command exited with non-zero..."
  local idle_after
  idle_after=$(idle_cpu)
  sessions_ended
  echo "$side $name $wall $(echo "$user + $sys" | bc) $((rss / 1024))" \
    "$(echo "$(sshd_cpu) - $hosts_before" | bc) $(echo "$idle_after - $idle_before" | bc)" \
    >> "$work/steps"
}

# The agent, for the hosts to run from here: no deployment is timed, and none is lost to another
# user's cleaning of ~/.cache/pdx on this machine.
cp "$PDX" "$work/agent"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$work/steps"
dir=bench-staging/today
parts=tree.tar.zst.part-
step today pack bash -c "tar -cf - -C $work tree | zstd -T0 -q |
  split -b 64M -d - $work/today/$parts"
step today mkdir bash -c "pdsh_run 'mkdir -p $dir'"
step today copy bash -c "pdcp_run $work/today/$parts* $dir/"
step today unpack bash -c "pdsh_run 'cat $dir/$parts* | tar --zstd -x -C $dir && rm $dir/$parts*'"
step today count bash -c "pdsh_run 'find $dir/tree -type f | wc -l' &&
  find $work/tree -type f | wc -l"
step today hash bash -c "pdsh_run 'cd $dir/tree && $hash_pipeline' && local_hash"
pdx "rm -rf $dir" && sync

dir=bench-staging/pdx
step pdx pack bash -c "cd $work && exec $PDX pack tree -o pdx/tree.tar.zst --split 64M"
step pdx stage "$PDX" -F "$CLUSTER/ssh_config" -w "$hosts" push --agent "$work/agent" \
  "$work/pdx/$parts"* "$dir/" --extract
step pdx verify "$PDX" -F "$CLUSTER/ssh_config" -w "$hosts" verify "$dir/tree" \
  --against "$work/tree" --hash
pdx "rm -rf $dir" && sync
step relay stage "$PDX" -F "$CLUSTER/ssh_config" -w "$hosts" push --relay --agent "$work/agent" \
  "$work/pdx/$parts"* "bench-staging/relay/" --extract
pdx "rm -rf bench-staging/relay" && sync
mkdir "$work/hostfs/floor"
step floor unpack bash -c "for i in \$(seq $HOSTS); do mkdir $work/hostfs/floor/\$i &&
  { cat $work/today/$parts* | tar --zstd -x -C $work/hostfs/floor/\$i & }; done; wait"
rm -rf "$work/hostfs/floor"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

printf 'staging day: %d files, %d MB (%d MB as tar.zst in %d parts) to %d hosts, %d cores\n' \
  "$count" $((bytes / 1000000)) $(($(cat "$work/pdx/$parts"* | wc -c) / 1000000)) \
  "$(find "$work/pdx" -type f | wc -l)" "$HOSTS" "$(nproc)"
echo "load average before: $load_before, after: $load_after (the machine is shared)"
echo "what the hosts held:"
echo "  today: counts $(grep -c ": $count\$" "$work/today.count.out")/$HOSTS hosts = $count here," \
  "hashes $(grep -cF ": $(local_hash)" "$work/today.hash.out")/$HOSTS hosts = here" \
  "(by eye; here by grep)"
echo "  pdx:   $(grep -v '^$' "$work/pdx.verify.out" | tr '\n' ' ')"
awk -v hosts="$HOSTS" -v cores="$(nproc)" '
  { key = $1 " " $2; wall[key] = $3; cpu[key] = $4; rss[key] = $5; hcpu[key] = $6; idle[key] = $7
    order[$1] = order[$1] " " $2 }
  # sum(SIDE, "STEP STEP...", ARRAY): ARRAY summed over those steps of SIDE ("": all of them).
  function sum(side, steps, a,   n, names, i, t) {
    n = split(steps == "" ? order[side] : steps, names, " ")
    for (i = 1; i <= n; i++) t += a[side " " names[i]]
    return t
  }
  function show(side,   n, names, i, k) {
    printf "%-10s %8s %8s %8s%s\n", side, "wall_s", "cpu_s", "hosts_s",
      side == "pdx" ? "  rss_MiB" : ""
    n = split(order[side], names, " ")
    for (i = 1; i <= n; i++) {
      k = side " " names[i]
      printf "  %-8s %8.2f %8.2f %8.2f%s\n", names[i], wall[k], cpu[k], hcpu[k],
        side == "pdx" ? sprintf(" %8d", rss[k]) : ""
    }
    printf "  %-8s %8.2f %8.2f %8.2f\n", "total", sum(side, "", wall), sum(side, "", cpu),
      sum(side, "", hcpu)
  }
  function ratio(what, t, p) {  # today / pdx over steps T of today and P of pdx
    printf "  %-55s x%-6.2f x%-6.2f %s\n", what, sum("today", t, wall) / sum("pdx", p, wall),
      sum("today", t, cpu) / sum("pdx", p, cpu),
      (sum("pdx", p, hcpu) > 0 ? sprintf("x%.2f", sum("today", t, hcpu) / sum("pdx", p, hcpu)) : "-")
  }
  END {
    show("today")
    show("pdx")
    printf "%-57s %-7s %-7s %s\n", "today / pdx", "wall", "cpu", "hosts"
    ratio("pack: tar | zstd | split vs pdx pack", "pack", "pack")
    ratio("stage: mkdir + pdcp + tar -x vs push --extract", "mkdir copy unpack", "stage")
    ratio("issue 12: pdcp + pdsh cat parts | tar -x vs push --extract", "copy unpack", "stage")
    ratio("check: find | wc -l + sha256sum vs verify --hash", "count hash", "verify")
    ratio("the whole day", "", "")
    printf "push --relay --extract: %.2f s, %.2f s CPU, hosts %.2f s; x%.2f of the stage today\n",
      wall["relay stage"], cpu["relay stage"], hcpu["relay stage"],
      wall["relay stage"] / sum("today", "mkdir copy unpack", wall)
    printf "floor (the disk): %d unpacks here at once, no ssh: %.2f s; push --extract x%.2f of it\n",
      hosts, wall["floor unpack"], wall["pdx stage"] / wall["floor unpack"]
    # The CPU floor of a step: its CPU here and on the hosts over the cores (the writeback
    # threads of the kernel left out), and how much of the cores it left idle: near 0% is
    # CPU-bound (or, on a shared machine, other work filling the gaps).
    printf "%-57s %-7s %-7s %s\n", "CPU floor: (cpu + hosts) / " cores " cores", "floor_s",
      "wall/it", "idle"
    floor_line("push --extract (a star: an ssh stream per host)", "pdx stage")
    floor_line("push --relay --extract", "relay stage")
    floor_line("the disk floor (16 tar --zstd -x)", "floor unpack")
  }
  function floor_line(what, k,   f) {
    f = (cpu[k] + hcpu[k]) / cores
    printf "  %-55s %-7.2f x%-6.2f %.0f%%\n", what, f, wall[k] / f, 100 * idle[k] / (cores * wall[k])
  }' "$work/steps"
