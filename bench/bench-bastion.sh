#!/usr/bin/env bash
# pdx through a jump host against pdsh -R ssh and clush with ssh's ProxyJump: `hostname` on N
# hosts (default 256) that this machine reaches only through one jump host, at fan-out = N
# (scripts/bastion-netns.sh: network namespaces on 198.18.0.0/15, root). pdx logs in to the jump
# host once and carries every host on a channel of that connection; ssh -J logs in to it once
# per host. For each tool: the median wall time of BENCH_RUNS runs (default 3; the tools take
# turns, so a slow spell of the machine hits them all) and its ratio to pdx, the hosts that
# answered (least and most of the runs), and per run the jump host's logins and the connections
# its sshd dropped (its log, at LogLevel VERBOSE: "Accepted", "past MaxStartups").
# The jump host's sshd keeps OpenSSH's defaults for what bounds the peers, MaxStartups
# 10:30:100 (unauthenticated connections: past 10, 30% of new ones dropped, rising to all at
# 100) and MaxSessions 10, as a bastion has them unless its admin raised them;
# BENCH_BASTION_OPTIONS replaces them (sshd_config lines, e.g. "MaxStartups 1000").
#
#   bench/bench-bastion.sh [-p PDX] [N]
# Needs: root, pdsh (Debian package); clush (clustershell) is run if installed. Not a test:
# nothing here is asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PDX=${PDX:-$here/../build/pdx}
while getopts p: opt; do
  case $opt in p) PDX=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
N=${1:-256}
RUNS=${BENCH_RUNS:-3}
setup=$here/../scripts/bastion-netns.sh

[[ $EUID -eq 0 ]] || { echo "bench-bastion: needs root (network namespaces)" >&2; exit 1; }
command -v pdsh > /dev/null || { echo "bench-bastion: pdsh is missing (apt-get install pdsh)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-bastion: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }
tools=(pdx pdsh)
if command -v clush > /dev/null; then tools+=(clush); else echo "bench-bastion: clush is not installed: skipped"; fi

exec 9> /run/lock/pdx-bastion-netns  # the tests' setup uses the same fixed addresses
flock 9
work=$(mktemp -d)
chmod 0755 "$work"  # sshd reads authorized_keys in it as each account
dir=$work/bastion
trap '"$setup" stop "$dir"; rm -rf "$work"' EXIT
export BASTION_SSHD_OPTIONS="LogLevel VERBOSE"$'\n'${BENCH_BASTION_OPTIONS:-$'MaxStartups 10:30:100\nMaxSessions 10'}
"$setup" start "$dir" "$N" > "$work/start.log" 2>&1 || { cat "$work/start.log" >&2; exit 1; }
config=$dir/ssh_config
# clush reads ProxyJump from ssh_config, as people set it up for ssh.
{ printf 'Host 198.18.202.* 198.18.205.*\n  ProxyJump bastion1\n'; cat "$config"; } > "$work/jump_config"

count() { grep -c "$1" "$dir/bastion1.log" || true; }

run() {  # run TOOL: one run, "TOOL wall answered logins dropped" appended to $work/runs
  local tool=$1 logins dropped start wall
  logins=$(count "Accepted publickey") dropped=$(count "past MaxStartups")
  start=$(date +%s.%N)
  case $tool in
    pdx) "$PDX" -F "$config" -J bastion1 -f "$N" -t 60 -w "^$dir/hosts1" hostname ;;
    # -l%u left out of pdsh's ssh arguments: the accounts are ssh_config's, as for the others.
    pdsh) PDSH_SSH_ARGS="-x -a %h" PDSH_SSH_ARGS_APPEND="-F $config -J bastion1" \
      pdsh -R ssh -f "$N" -t 60 -w "^$dir/hosts1" hostname ;;
    clush) clush -f "$N" -t 60 --hostfile "$dir/hosts1" -o "-F $work/jump_config" hostname ;;
  esac < /dev/null > "$work/out" 2> /dev/null || true
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  sleep 1  # the jump host's sshd logs a login as it happens, a drop too; let the last ones land
  echo "$tool $wall $(grep -c . "$work/out") $(($(count "Accepted publickey") - logins)) \
$(($(count "past MaxStartups") - dropped))" >> "$work/runs"
}

for ((r = 0; r < RUNS; r++)); do
  for tool in "${tools[@]}"; do run "$tool"; done
done

echo "hostname on $N hosts behind one jump host, fan-out $N, $RUNS runs each;" \
  "jump host sshd: $(tr '\n' ' ' <<< "$BASTION_SSHD_OPTIONS")"
printf '%-6s %10s %14s %16s %18s\n' tool "wall (s)" answered "logins per run" "dropped per run"
sort -k1,1 -k2,2n "$work/runs" | awk -v runs="$RUNS" '
  { k = $1; i = ++n[k]; wall[k, i] = $2; ans_min[k] = (i == 1 || $3 < ans_min[k]) ? $3 : ans_min[k]
    ans_max[k] = $3 > ans_max[k] ? $3 : ans_max[k]; logins[k] = logins[k] " " $4; drop[k] = drop[k] " " $5 }
  END {
    split("pdx pdsh clush", order, " ")
    for (j = 1; j <= 3; j++) {
      k = order[j]
      if (!(k in n)) continue
      med[k] = wall[k, int((n[k] + 1) / 2)]
      printf "%-6s %10.2f %14s %16s %18s\n", k, med[k], ans_min[k] "-" ans_max[k], logins[k], drop[k]
    }
    for (j = 2; j <= 3; j++) {
      k = order[j]
      if (k in n) printf "  %-5s wall x%.1f of pdx\n", k, med[k] / med["pdx"]
    }
  }'
