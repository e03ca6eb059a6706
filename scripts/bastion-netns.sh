#!/usr/bin/env bash
# Hosts this machine cannot reach but through jump hosts, for the tests of ProxyJump and
# ProxyCommand. Root only; network namespaces, 198.18.0.0/15 addresses only.
#
#   bastion-netns.sh start DIR N   N hosts (2..500) behind one jump host, N behind two
#   bastion-netns.sh stop DIR      sshds, namespaces and links gone
#
#   this machine  198.18.200.1 --veth-- 198.18.200.2  namespace "outer": bastion1's sshd there,
#                                                     hosts 198.18.202.1..N on its loopback
#                                                     (past 250: 198.18.205.1..)
#                                       198.18.201.1 --veth-- 198.18.201.2  namespace "inner":
#                                                     bastion2's sshd there (reached from outer
#                                                     only), hosts 198.18.203.1..N
#                                                     (past 250: 198.18.206.1..)
# 198.18.204.0/24 stands for hosts down behind bastion1: their SYNs go unanswered.
#
# Nothing forwards between the namespaces; this machine has a route to 198.18.200.0/30 and
# "unreachable" ones for the rest (so no packet leaves by its default route), and one setup at a
# time (the addresses are fixed: a lock on /run/lock/pdx-bastion-netns while it runs); a start
# first removes what a setup never stopped (its test killed) left.
# The hosts are thus reached through bastion1 (one hop) or bastion1 then bastion2 (two hops).
# The bastions' sshds log at INFO to DIR/bastion1.log and DIR/bastion2.log (one "Accepted" line a
# login); the hosts' to DIR/sshd.log, an sshd per 15 hosts (the first ones' is "hosts1",
# "hosts2"). Accounts and keys are loopback-cluster.sh's (pdx001...);
# DIR gets ssh_config (Host bastion1, bastion2, and every host with its account, port 2222),
# known_hosts (every address, the bastions' too), hosts1 and hosts2 (one address a line).
# BASTION_SSHD_OPTIONS: sshd_config lines for the bastions' sshds, ahead of the setup's own (sshd
# takes a keyword's first value), e.g. "ClientAliveInterval 1".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/loopback-cluster.sh"

die() { echo "bastion-netns: $*" >&2; exit 1; }

readonly PORT=2222 BASTION1=198.18.200.2 BASTION2=198.18.201.2
# Refused here at once, never sent along this machine's default route.
readonly UNREACHABLE="198.18.201.0/24 198.18.202.0/24 198.18.203.0/24 198.18.204.0/24
  198.18.205.0/24 198.18.206.0/24"
readonly HOSTS_PER_SSHD=15  # addresses an sshd listens on (OpenSSH takes at most 16)

# Host i (1-based) behind one hop, behind two: 250 a /24.
address1() { if (( $1 <= 250 )); then echo "198.18.202.$1"; else echo "198.18.205.$(($1 - 250))"; fi; }
address2() { if (( $1 <= 250 )); then echo "198.18.203.$1"; else echo "198.18.206.$(($1 - 250))"; fi; }

prefix() { echo "pb$(echo -n "$DIR" | md5sum | cut -c1-6)"; }

bastion_stop() {
  local pid ns
  for pid in $(pids); do
    if ours "$pid"; then kill "$pid" 2> /dev/null || true; fi
  done
  for pid in $(pids); do
    for _ in $(seq 50); do ours "$pid" || break; sleep 0.1; done
  done
  rm -f "$DIR"/sshd.*.pid "$DIR"/sshd.*.conf
  for net in $UNREACHABLE; do ip route del unreachable "$net" 2> /dev/null || true; done
  for ns in $(ip netns list | awk '{print $1}' | grep "^$(prefix)-" || true); do
    # What still runs there (a command its sshds started) would keep it, and its links, alive.
    for pid in $(ip netns pids "$ns"); do kill -9 "$pid" 2> /dev/null || true; done
    ip netns del "$ns"  # and its veth ends, with the other ends
  done
  ip link del "$(prefix)a" 2> /dev/null || true  # gone with its peer, unless that is still held
}

# sshd NAME NAMESPACE LOG LOGLEVEL ADDRESS...: an sshd in NAMESPACE on ADDRESSes, port 2222.
# A bastion's config starts with BASTION_SSHD_OPTIONS.
start_sshd() {
  local name=$1 ns=$2 log=$3 level=$4
  shift 4
  {
    if [[ $name == bastion* && -n ${BASTION_SSHD_OPTIONS:-} ]]; then echo "$BASTION_SSHD_OPTIONS"; fi
    echo "Port $PORT"
    printf 'ListenAddress %s\n' "$@"
    sshd_settings "$name" | sed "s/^LogLevel .*/LogLevel $level/"
  } > "$DIR/sshd.$name.conf"
  ip netns exec "$ns" /usr/sbin/sshd -f "$DIR/sshd.$name.conf" -E "$log" ||
    die "sshd $name failed to start (see $log)"
}

write_files() {
  local key i a
  key=$(cut -d' ' -f1-2 "$DIR/ssh_host_ed25519_key.pub")
  : > "$DIR/hosts1"
  : > "$DIR/hosts2"
  for i in $(seq "$N"); do
    address1 "$i" >> "$DIR/hosts1"
    address2 "$i" >> "$DIR/hosts2"
  done
  for a in "$BASTION1" "$BASTION2" $(cat "$DIR/hosts1" "$DIR/hosts2"); do
    echo "[$a]:$PORT $key"
  done > "$DIR/known_hosts"
  {
    printf 'Host bastion1\n  HostName %s\n  User %s\n' "$BASTION1" "$(account 1)"
    printf 'Host bastion2\n  HostName %s\n  User %s\n' "$BASTION2" "$(account 2)"
    for i in $(seq "$N"); do
      printf 'Host %s %s\n  User %s\n' "$(address1 "$i")" "$(address2 "$i")" "$(account "$i")"
    done
    cat << EOF
Host *
  Port $PORT
  IdentityFile $DIR/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $DIR/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
EOF
  } > "$DIR/ssh_config"
}

answers_in() {  # namespace address: true once an sshd there sends its banner
  ip netns exec "$1" timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1" && head -c 4 <&3' "$2" "$PORT" \
    2> /dev/null | grep -q SSH-
}

# A setup of another DIR that was never stopped (its test killed at its timeout) holds the
# fixed addresses: its namespaces, what runs in them, and this machine's end of its link go.
stale_stop() {
  local ns pid link
  for ns in $(ip netns list | awk '{print $1}' | grep -E '^pb[0-9a-f]{6}-[oi]$' || true); do
    for pid in $(ip netns pids "$ns"); do kill -9 "$pid" 2> /dev/null || true; done
    ip netns del "$ns" 2> /dev/null || true
  done
  for link in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^pb[0-9a-f]{6}a$' || true); do
    ip link del "$link" 2> /dev/null || true
  done
}

bastion_start() {
  [[ $EUID -eq 0 ]] || die "needs root (network namespaces)"
  (( N >= 2 && N <= 500 )) || die "N must be 2..500"
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)
  bastion_stop
  stale_stop
  mkdir -p /run/sshd
  make_accounts
  make_keys
  local p outer inner i
  p=$(prefix) outer=$(prefix)-o inner=$(prefix)-i
  ip netns add "$outer"
  ip netns add "$inner"
  ip link add "${p}a" type veth peer name "${p}b"  # this machine <-> outer
  ip link set "${p}b" netns "$outer" name eth0
  ip addr add 198.18.200.1/30 dev "${p}a"
  for net in $UNREACHABLE; do ip route add unreachable "$net"; done
  ip link set "${p}a" up
  ip link add "${p}c" type veth peer name "${p}d"  # outer <-> inner
  ip link set "${p}c" netns "$outer" name eth1
  ip link set "${p}d" netns "$inner" name eth0
  ip -n "$outer" addr add "$BASTION1/30" dev eth0
  ip -n "$outer" addr add 198.18.201.1/30 dev eth1
  ip -n "$inner" addr add "$BASTION2/30" dev eth0
  for ns in "$outer" "$inner"; do
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
  done
  ip -n "$outer" link set eth1 up
  # 198.18.204.0/24: hosts down behind bastion1 (inner drops what it does not forward: a
  # connect there waits for TCP's SYN retries).
  ip -n "$outer" route add 198.18.204.0/24 via "$BASTION2"
  for i in $(seq "$N"); do
    ip -n "$outer" addr add "$(address1 "$i")/32" dev lo
    ip -n "$inner" addr add "$(address2 "$i")/32" dev lo
  done
  : > "$DIR/sshd.log"
  : > "$DIR/bastion1.log"
  : > "$DIR/bastion2.log"
  start_sshd bastion1 "$outer" "$DIR/bastion1.log" INFO "$BASTION1"
  start_sshd bastion2 "$inner" "$DIR/bastion2.log" INFO "$BASTION2"
  write_files
  local first=1 suffix=""
  while (( first <= N )); do
    # shellcheck disable=SC2046  # one address a word
    start_sshd "hosts1$suffix" "$outer" "$DIR/sshd.log" ERROR $(sed -n "$first,$((first + HOSTS_PER_SSHD - 1))p" "$DIR/hosts1")
    # shellcheck disable=SC2046
    start_sshd "hosts2$suffix" "$inner" "$DIR/sshd.log" ERROR $(sed -n "$first,$((first + HOSTS_PER_SSHD - 1))p" "$DIR/hosts2")
    first=$((first + HOSTS_PER_SSHD)) suffix="-$(( (first - 1) / HOSTS_PER_SSHD + 1 ))"
  done
  for _ in $(seq 100); do
    answers_in "$outer" "$BASTION1" && answers_in "$inner" "$BASTION2" &&
      answers_in "$outer" "$(address1 "$N")" && answers_in "$inner" "$(address2 "$N")" && return 0
    sleep 0.1
  done
  die "the sshds do not answer"
}

[[ $# -ge 2 ]] || die "usage: $0 start DIR N | stop DIR"
command=$1 DIR=$2
case "$command" in
  start)
    [[ $# -eq 3 ]] || die "usage: $0 start DIR N"
    N=$3
    bastion_start
    ;;
  stop)
    [[ -d $DIR ]] || exit 0
    DIR=$(cd "$DIR" && pwd)
    bastion_stop
    ;;
  *) die "usage: $0 start DIR N | stop DIR" ;;
esac
