# Shared by tests/cli/ssh_*.sh: the loopback sshd cluster that ctest's ssh_cluster fixture
# started (scripts/loopback-cluster.sh), and how to run pdx against it.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CLUSTER=${PDX_CLUSTER:-$(dirname "${PDX_TEST_TMP:-/nonexistent}")/cluster}
[[ -f $CLUSTER/cluster ]] || fail "no loopback cluster in $CLUSTER (run: scripts/loopback-cluster.sh start $CLUSTER 64)"
read -r CLUSTER_SIZE CLUSTER_PORT < "$CLUSTER/cluster"
CONFIG=$CLUSTER/ssh_config
HOSTFILE=$CLUSTER/hostfile

# run_ssh ARGS...: pdx against the cluster (its ssh_config), stdin from /dev/null.
run_ssh() { run_pdx -F "$CONFIG" "$@"; }

# host N -> its address (as scripts/loopback-cluster.sh numbers them)
host() { sed -n "${1}p" "$HOSTFILE"; }

# The remote account's home on host N: its own as root (pdxNNN), else the one shared account.
home_of() {
  if [[ $EUID -eq 0 ]]; then getent passwd "$(printf 'pdx%03d' "$1")" | cut -d: -f6; else echo "$HOME"; fi
}

# A copy of the cluster's ssh_config whose known_hosts is $SCRATCH/known_hosts (for host key
# tests); prints its path.
config_with_known_hosts() {
  sed "s#^  UserKnownHostsFile .*#  UserKnownHostsFile $SCRATCH/known_hosts#" "$CONFIG" > "$SCRATCH/ssh_config"
  touch "$SCRATCH/known_hosts"
  echo "$SCRATCH/ssh_config"
}

# ---- A server of the test's own, for what the cluster's sshd does not do (passwords, RSA). ----

# skip REASON: this test cannot run here; it passes, saying why.
skip() {
  echo "SKIP [$TEST_NAME]: $*"
  exit 0
}

# at_exit COMMAND: eval COMMAND when the test ends (also on SIGINT, SIGTERM, SIGHUP), the last
# registered first, then remove $SCRATCH (this replaces common.sh's EXIT trap).
EXIT_ACTIONS=()
at_exit() {
  EXIT_ACTIONS=("$1" ${EXIT_ACTIONS[@]+"${EXIT_ACTIONS[@]}"})
  trap 'for _action in "${EXIT_ACTIONS[@]}"; do eval "$_action"; done; rm -rf "$SCRATCH"' EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# password_account NAME PASSWORD: a new local account (root only) that logs in with PASSWORD;
# removed, with its home, when the test ends.
password_account() {
  useradd --create-home --shell /bin/sh "$1" || fail "cannot create account $1"
  at_exit "remove_account $1"
  printf '%s:%s\n' "$1" "$2" | chpasswd || fail "chpasswd failed for $1"
}

remove_account() {  # NAME: once its sessions are gone (sshd ends them just after pdx exits)
  for _ in $(seq 50); do pgrep -u "$1" > /dev/null || break; sleep 0.1; done
  userdel -r -f "$1" 2> /dev/null
}

# start_sshd NAME ADDRESS...: an sshd of this test's own on ADDRESSes, at a free port, stopped
# when the test ends. Its settings are the lines on stdin, then the cluster's sshd config for
# every keyword those lines do not set (host keys, StrictModes, ...). Leaves $SCRATCH/NAME.log,
# and $SCRATCH/NAME.ssh_config: the cluster's client config with this sshd's Port and a
# known_hosts that knows ADDRESSes (with the cluster's host key).
# Addresses: each test its own, from 127.0.0.200-249 (ctest's cluster has 64 hosts).
start_sshd() {
  local name=$1 settings keywords port address
  shift
  settings=$(cat)
  keywords=$(printf '%s\n' "$settings" Port ListenAddress PidFile | awk 'NF { print $1 }' | paste -sd'|')
  mkdir -p /run/sshd 2> /dev/null || true
  at_exit "stop_sshd $name"
  for _ in $(seq 20); do
    port=$(( 10000 + RANDOM % 20000 ))  # below the kernel's range for outgoing connections
    {
      echo "Port $port"
      printf 'ListenAddress %s\n' "$@"
      echo "PidFile $SCRATCH/$name.pid"
      printf '%s\n' "$settings"
      grep -Eiv "^($keywords)[[:space:]]" "$CLUSTER/sshd.0.conf"
    } > "$SCRATCH/$name.sshd_config"
    : > "$SCRATCH/$name.log"
    if /usr/sbin/sshd -f "$SCRATCH/$name.sshd_config" -E "$SCRATCH/$name.log"; then
      for _ in $(seq 50); do [[ -s $SCRATCH/$name.pid ]] && break; sleep 0.1; done
      # It binds (and says what it could not bind) before it returns.
      grep -q 'Bind to port .* failed' "$SCRATCH/$name.log" || break
      stop_sshd "$name"  # a port that one of the addresses cannot have: try another
    fi
    port=
  done
  [[ -n $port ]] || fail "sshd $name did not start: $(cat "$SCRATCH/$name.log")"
  local key
  key=$(cut -d' ' -f1-2 "$CLUSTER/ssh_host_ed25519_key.pub")
  for address in "$@"; do echo "[$address]:$port $key"; done > "$SCRATCH/$name.known_hosts"
  {
    printf 'Host *\n  Port %s\n  UserKnownHostsFile %s\n' "$port" "$SCRATCH/$name.known_hosts"
    cat "$CONFIG"
  } > "$SCRATCH/$name.ssh_config"
  for address in "$@"; do
    for _ in $(seq 50); do
      timeout 2 bash -c 'exec 3<> "/dev/tcp/$0/$1" && head -c 4 <&3' "$address" "$port" 2> /dev/null |
        grep -q SSH- && continue 2
      sleep 0.1
    done
    fail "sshd $name does not answer on $address port $port: $(cat "$SCRATCH/$name.log")"
  done
}

# stop_sshd NAME: ends the sshd start_sshd began (by its pid file, if that pid is still it).
stop_sshd() {
  local pid
  pid=$(cat "$SCRATCH/$1.pid" 2> /dev/null) || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | grep -q -- "-f $SCRATCH/$1.sshd_config" || return 0
  kill "$pid"
  for _ in $(seq 50); do [[ -e /proc/$pid ]] || break; sleep 0.1; done
  rm -f "$SCRATCH/$1.pid"
}

# run_askpass PASSWORD ARGS...: pdx --askpass ARGS with a pseudo-terminal as its /dev/tty, where
# PASSWORD is typed at the prompt; stdin from /dev/null. Sets $out, $err, $status as run_pdx does,
# and $tty: what the terminal showed.
run_askpass() {
  local password=$1
  shift
  python3 "$(dirname "${BASH_SOURCE[0]}")/answer_tty.py" "pdx: password for all hosts: " \
    "$password" "$SCRATCH/tty" "$PDX" --askpass "$@" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
  tty=$(tr -d '\r' < "$SCRATCH/tty")
}

# After run_askpass with the wrong password $1: every host failed with the one line $3 (255),
# nothing ran (the marker file $2 was not made), and the password was shown nowhere.
expect_password_refused() {
  local wrong=$1 marker=$2 line=$3 shown
  expect_status 255
  expect_eq "$out" "" "output"
  [[ -e $marker ]] && fail "a command ran after a wrong password"
  expect_eq "$err" "$line" "failure"
  for shown in "$out" "$err" "$tty"; do
    [[ $shown == *"$wrong"* ]] && fail "the password was shown: [$shown]"
  done
}

# sshd_of USER PATTERN [PID]: the pids of the sshd processes that serve the connection of USER's
# process PID, else of the first matching `pgrep -f PATTERN` (its "sshd: USER@notty" and that
# one's "sshd: USER [priv]"), one per line.
sshd_of() {
  local pid=${3:-} sshd=()
  [[ -n $pid ]] || pid=$(pgrep -u "$1" -f "$2" | head -n 1)
  [[ -n $pid ]] || fail "no process of $1 matches [$2]"
  while pid=$(ps -o ppid= -p "$pid" | tr -d ' ') && [[ -n $pid && $pid != 1 ]]; do
    if [[ $(ps -o args= -p "$pid") == "sshd: $1"* ]]; then
      sshd+=("$pid")
    elif (( ${#sshd[@]} )); then
      break  # the listening sshd, which serves the other hosts
    fi
  done
  (( ${#sshd[@]} )) || fail "no sshd serves the process $pid of $1"
  printf '%s\n' "${sshd[@]}"
}

# kill_sshd_of USER PATTERN [PID]: as if the host's sshd died in the middle of a session:
# SIGKILLs sshd_of USER PATTERN [PID], lets PID go on (SIGCONT: the caller may have stopped it),
# then waits (5 s) until no process of USER matches PATTERN any more.
kill_sshd_of() {
  local sshd
  sshd=$(sshd_of "$@") || exit 1
  kill -KILL $sshd 2> /dev/null
  [[ -z ${3:-} ]] || kill -CONT "$3" 2> /dev/null || true
  for _ in $(seq 50); do pgrep -u "$1" -f "$2" > /dev/null || return 0; sleep 0.1; done
  fail "[$2] of $1 still runs after its sshd was killed"
}
