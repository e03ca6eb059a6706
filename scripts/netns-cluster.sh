#!/usr/bin/env bash
# A cluster of N ssh hosts with real, rate-limited links, for benchmarks and tests that need a
# network (the relay, a star's cost): each host is a network namespace of its own with sshd, and
# the client is one more namespace, all on one switch. Root only.
#
#   netns-cluster.sh start DIR N [RATE]  hosts 198.18.0.1 ... 198.18.0.N, the client 198.18.1.1;
#                                        every link (the client's too) RATE each way
#                                        (tc's units, default 200mbit)
#   netns-cluster.sh run DIR CMD...      CMD in the client's namespace (only 198.18.0.0/15 there)
#   netns-cluster.sh host DIR K CMD...   CMD in host K's namespace
#   netns-cluster.sh stop DIR            sshds, namespaces and links gone
#
# Addresses are 198.18.0.0/15 only (set aside for network benchmarks), inside namespaces this
# script makes: nothing is routed to or from the machine's own namespaces. The namespaces are
# named after DIR, so clusters in two directories do not meet. Accounts, keys and DIR's client
# files (ssh_config, known_hosts, hostfile, cluster) are loopback-cluster.sh's, so that
#   netns-cluster.sh run DIR pdx -F DIR/ssh_config -w ^DIR/hostfile 'cmd'
# works as with a loopback cluster.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/loopback-cluster.sh"

die() { echo "netns-cluster: $*" >&2; exit 1; }

readonly PORT=2222 CLIENT=198.18.1.1

# Host i (1-based) -> its address, 1..250 (one /24 is plenty for links this machine can shape).
address() { echo "198.18.0.$1"; }

# Namespace and link names: a prefix from DIR (interface names are at most 15 bytes).
prefix() { echo "px$(echo -n "$DIR" | md5sum | cut -c1-6)"; }
ns_host() { echo "$(prefix)-$1"; }
ns_client() { echo "$(prefix)-c"; }
ns_switch() { echo "$(prefix)-sw"; }

# Plugs namespace $1 into the switch as $2 (its address), both directions shaped to RATE.
plug() {
  local ns=$1 addr=$2 name=$3 burst
  burst=256kb  # above RATE / HZ for rates up to a few Gbit
  ip netns add "$ns"
  ip link add "$(prefix)h$name" type veth peer name "$(prefix)s$name"
  ip link set "$(prefix)h$name" netns "$ns" name eth0
  ip link set "$(prefix)s$name" netns "$(ns_switch)"
  ip -n "$(ns_switch)" link set "$(prefix)s$name" master br0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$addr/15" dev eth0
  ip -n "$ns" link set eth0 up
  ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$RATE" burst "$burst" latency 50ms
  ip netns exec "$(ns_switch)" tc qdisc add dev "$(prefix)s$name" root tbf rate "$RATE" \
    burst "$burst" latency 50ms
}

write_sshd_config() {  # host i
  { printf 'Port %s\nListenAddress %s\n' "$PORT" "$(address "$1")"; sshd_settings "$1"; } \
    > "$DIR/sshd.$1.conf"
}

netns_stop() {
  local pid ns
  for pid in $(pids); do
    if ours "$pid"; then kill "$pid" 2> /dev/null || true; fi
  done
  for pid in $(pids); do
    for _ in $(seq 50); do ours "$pid" || break; sleep 0.1; done
  done
  rm -f "$DIR"/sshd.*.pid "$DIR"/sshd.*.conf "$DIR/cluster"
  # Deleting a namespace deletes its ends of the veth pairs, and with them the other ends.
  for ns in $(ip netns list | awk '{print $1}' | grep "^$(prefix)-" || true); do
    ip netns del "$ns"
  done
}

netns_start() {
  [[ $EUID -eq 0 ]] || die "needs root (network namespaces)"
  (( N >= 1 && N <= 250 )) || die "N must be 1..250"
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)
  netns_stop
  mkdir -p /run/sshd
  make_accounts
  make_keys
  ip netns add "$(ns_switch)"
  ip -n "$(ns_switch)" link add br0 type bridge
  ip -n "$(ns_switch)" link set br0 up
  plug "$(ns_client)" "$CLIENT" c
  local i
  : > "$DIR/sshd.log"
  for i in $(seq "$N"); do
    plug "$(ns_host "$i")" "$(address "$i")" "$i"
    write_sshd_config "$i"
    ip netns exec "$(ns_host "$i")" /usr/sbin/sshd -f "$DIR/sshd.$i.conf" -E "$DIR/sshd.log" ||
      die "sshd of host $i failed to start (see $DIR/sshd.log)"
  done
  write_client_files
  echo "$RATE" > "$DIR/rate"
  for i in $(seq "$N"); do
    for _ in $(seq 100); do
      ip netns exec "$(ns_client)" bash -c 'exec 3<>"/dev/tcp/$0/$1" && head -c 4 <&3' \
        "$(address "$i")" "$PORT" 2> /dev/null | grep -q SSH- && continue 2
      sleep 0.1
    done
    die "host $(address "$i") port $PORT does not answer"
  done
}

[[ $# -ge 2 ]] || die "usage: $0 start DIR N [RATE] | run DIR CMD... | host DIR K CMD... | stop DIR"
command=$1 DIR=$2
shift 2
case "$command" in
  start)
    [[ $# -ge 1 && $# -le 2 ]] || die "usage: $0 start DIR N [RATE]"
    N=$1 RATE=${2:-200mbit}
    netns_start
    ;;
  run)
    DIR=$(cd "$DIR" && pwd)
    exec ip netns exec "$(ns_client)" "$@"
    ;;
  host)
    DIR=$(cd "$DIR" && pwd)
    k=$1
    shift
    exec ip netns exec "$(ns_host "$k")" "$@"
    ;;
  stop)
    [[ -d $DIR ]] || exit 0
    DIR=$(cd "$DIR" && pwd)
    netns_stop
    ;;
  *) die "usage: $0 start DIR N [RATE] | run DIR CMD... | host DIR K CMD... | stop DIR" ;;
esac
