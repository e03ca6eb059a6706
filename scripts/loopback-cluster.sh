#!/usr/bin/env bash
# A cluster of N ssh hosts on this machine, for pdx's tests, demo and benchmarks.
#
#   loopback-cluster.sh start DIR N   hosts 127.0.0.1 ... (N of them, 250 per 127.0.X.0/24)
#   loopback-cluster.sh stop DIR      stops exactly the sshd processes `start` began
#
# Every address in 127.0.0.0/8 is this machine, so each address is a host. One sshd serves 16
# addresses (sshd's MAX_LISTEN_SOCKS), all on one free high port. As root each host has its own
# account (pdx001, pdx002, ...) and home; otherwise every host is the current user.
# `start` leaves in DIR: id_ed25519 (client key), known_hosts (plain entries, and hashed ones for
# the first 8 hosts), ssh_config (Port, User, IdentityFile, UserKnownHostsFile,
# StrictHostKeyChecking yes) and hostfile, so that
#   pdx -F DIR/ssh_config -w ^DIR/hostfile 'cmd'
# works. It returns once every host answers, prints nothing but errors, and is safe to run
# again (a running cluster of the same size is kept).
set -euo pipefail

die() { echo "loopback-cluster: $*" >&2; exit 1; }

readonly PER_SSHD=16
readonly HASHED=8  # hosts whose known_hosts entry is hashed, so the hashed path is exercised

# Host i (1-based) -> its address: 250 per /24, never .0 or .255.
address() { echo "127.0.$(( ($1 - 1) / 250 )).$(( ($1 - 1) % 250 + 1 ))"; }
account() { if [[ $EUID -eq 0 ]]; then printf 'pdx%03d' "$1"; else id -un; fi; }

pids() { cat "$DIR"/sshd.*.pid 2>/dev/null || true; }

# True if pid $1 is an sshd started with one of our config files (a recycled pid is not ours).
ours() { tr '\0' ' ' 2>/dev/null < "/proc/$1/cmdline" | grep -q -- "-f $DIR/sshd."; }

stop() {
  local pid
  for pid in $(pids); do
    if ours "$pid"; then kill "$pid" 2>/dev/null || true; fi
  done
  for pid in $(pids); do
    for _ in $(seq 50); do ours "$pid" || break; sleep 0.1; done
  done
  rm -f "$DIR"/sshd.*.pid "$DIR"/sshd.*.conf  # a bigger cluster's configs are not started again
}

# A port no socket uses, outside the kernel's range for outgoing connections (below it, or above
# it when it starts low): a port in that range can be taken by a client's connection on
# 127.0.0.1 meanwhile, and sshd then cannot listen there.
free_port() {
  local used port low high from to
  read -r low high < /proc/sys/net/ipv4/ip_local_port_range
  if (( low > 12000 )); then from=10000 to=$low; else from=$(( high + 1 )) to=65536; fi
  (( to - from >= 1000 )) || die "no ports outside the outgoing range $low-$high"
  used=$(ss -Htan | awk '{print $4}' | sed 's/.*://' | sort -u)
  for _ in $(seq 100); do
    port=$(( from + RANDOM % (to - from) ))
    grep -qx "$port" <<< "$used" || { echo "$port"; return; }
  done
  die "no free port found"
}

make_accounts() {
  [[ $EUID -eq 0 ]] || return 0
  local i name
  for i in $(seq "$N"); do
    name=$(account "$i")
    if ! getent passwd "$name" > /dev/null; then
      useradd --create-home --shell /bin/sh "$name" 2> /dev/null || die "cannot create account $name"
    fi
    # An account with a locked password (!) may not log in even by key when UsePAM is off.
    usermod -p '*' "$name"
  done
}

make_keys() {
  [[ -f $DIR/id_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C pdx-cluster -f "$DIR/id_ed25519"
  # Two host keys, as real hosts have: known_hosts holds only the ed25519 one, which is the
  # one a client must negotiate (libssh2 alone would pick ECDSA).
  local type
  for type in ed25519 ecdsa; do
    [[ -f $DIR/ssh_host_${type}_key ]] ||
      ssh-keygen -q -t "$type" -N '' -C pdx-cluster-host -f "$DIR/ssh_host_${type}_key"
  done
  cp "$DIR/id_ed25519.pub" "$DIR/authorized_keys"
  chmod 644 "$DIR/authorized_keys" "$DIR/ssh_host_ed25519_key.pub"
  chmod 755 "$DIR"  # sshd reads authorized_keys as each account
}

# The lines every test sshd's config shares; $1 names its pid file.
sshd_settings() {
  cat <<EOF
HostKey $DIR/ssh_host_ecdsa_key
HostKey $DIR/ssh_host_ed25519_key
AuthorizedKeysFile $DIR/authorized_keys
PidFile $DIR/sshd.$1.pid
UsePAM no
StrictModes no
MaxStartups 2000
MaxSessions 100
PasswordAuthentication no
KbdInteractiveAuthentication no
PrintMotd no
PrintLastLog no
LogLevel ERROR
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
}

write_sshd_configs() {
  local first=1 k=0 i
  while (( first <= N )); do
    {
      echo "Port $PORT"
      for (( i = first; i < first + PER_SSHD && i <= N; i++ )); do
        echo "ListenAddress $(address "$i")"
      done
      sshd_settings "$k"
    } > "$DIR/sshd.$k.conf"
    first=$(( first + PER_SSHD )) k=$(( k + 1 ))
  done
}

write_client_files() {
  local i key
  key=$(cut -d' ' -f1-2 "$DIR/ssh_host_ed25519_key.pub")
  : > "$DIR/hostfile"
  : > "$DIR/known_hosts.hashed"
  {
    for i in $(seq "$N"); do
      echo "$(address "$i")" >> "$DIR/hostfile"
      if (( i <= HASHED )); then
        echo "[$(address "$i")]:$PORT $key" >> "$DIR/known_hosts.hashed"
      else
        echo "[$(address "$i")]:$PORT $key"
      fi
    done
  } > "$DIR/known_hosts"
  ssh-keygen -q -H -f "$DIR/known_hosts.hashed" > /dev/null 2>&1
  cat "$DIR/known_hosts.hashed" >> "$DIR/known_hosts"
  rm -f "$DIR/known_hosts.hashed" "$DIR/known_hosts.hashed.old"
  {
    if [[ $EUID -eq 0 ]]; then
      for i in $(seq "$N"); do printf 'Host %s\n  User %s\n' "$(address "$i")" "$(account "$i")"; done
    fi
    cat <<EOF
Host *
  Port $PORT
  User $(id -un)
  IdentityFile $DIR/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $DIR/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
EOF
  } > "$DIR/ssh_config"
  echo "$N $PORT" > "$DIR/cluster"
}

answers() {  # address port: true once an sshd there sends its banner
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1" && head -c 4 <&3' "$1" "$2" 2> /dev/null |
    grep -q SSH-
}

wait_ready() {
  local i
  for i in $(seq "$N"); do
    for _ in $(seq 100); do answers "$(address "$i")" "$PORT" && continue 2; sleep 0.1; done
    die "host $(address "$i") port $PORT does not answer"
  done
}

running() {  # the cluster in DIR has N hosts and every sshd is alive
  [[ -f $DIR/cluster ]] || return 1
  read -r n _ < "$DIR/cluster"
  [[ $n == "$N" ]] || return 1
  local count=0 pid
  for pid in $(pids); do ours "$pid" || return 1; count=$(( count + 1 )); done
  (( count == (N + PER_SSHD - 1) / PER_SSHD ))
}

start() {
  (( N >= 1 && N <= 10000 )) || die "N must be 1..10000"
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)
  if running; then
    read -r _ PORT < "$DIR/cluster"
    wait_ready
    return
  fi
  stop
  mkdir -p /run/sshd 2> /dev/null || true
  make_accounts
  make_keys
  local conf attempt started
  for attempt in 1 2 3 4 5; do
    PORT=$(free_port)
    write_sshd_configs
    write_client_files
    : > "$DIR/sshd.log"
    started=1
    for conf in "$DIR"/sshd.*.conf; do
      /usr/sbin/sshd -f "$conf" -E "$DIR/sshd.log" || started=0
    done
    # Each sshd binds before it returns; one that could not bind an address says so (and one
    # that could bind none of its addresses also fails to start).
    if ! grep -q "Bind to port $PORT .* failed" "$DIR/sshd.log"; then
      (( started )) || die "sshd failed to start (see $DIR/sshd.log)"
      break
    fi
    (( attempt < 5 )) || die "cannot listen on port $PORT: $(grep -m1 Bind "$DIR/sshd.log")"
    stop
  done
  wait_ready
}

# Sourced (by netns-cluster.sh, for the accounts, keys and client files): functions only.
[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0

case "${1:-}" in
  start) [[ $# -eq 3 ]] || die "usage: $0 start DIR N"; DIR=$2 N=$3; start ;;
  stop)
    [[ $# -eq 2 ]] || die "usage: $0 stop DIR"
    DIR=$2
    [[ -d $DIR ]] || exit 0
    DIR=$(cd "$DIR" && pwd)
    stop
    rm -f "$DIR/cluster"
    ;;
  *) die "usage: $0 start DIR N | stop DIR" ;;
esac
