# Shared by tests/cli/ssh_preflight_*.sh: 8 hosts of the loopback cluster (41-48, the master and
# first host 127.0.0.41), a directory of this test's own in each host's home ($dir, removed at the
# end), a free port for the master's, and `preflight ARGS...` running pdx preflight on them.
source "$(dirname "${BASH_SOURCE[0]}")/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"

PF_HOSTS=()
for n in $(seq 41 48); do PF_HOSTS+=("$(host "$n")"); done
hosts=$(IFS=,; echo "${PF_HOSTS[*]}")
dir=pdx-test-$TEST_NAME-$$
for n in $(seq 41 48); do
  install -d -o "pdx0$n" -g "pdx0$n" "$(home_of "$n")/$dir" || fail "cannot make $dir on host $n"
done
at_exit 'for n in $(seq 41 48); do rm -rf "$(home_of "$n")/$dir"; done'

# free_port: a TCP port nothing listens on, below the kernel's range for outgoing connections.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((10000 + RANDOM % 20000))
    ss -Htan "sport = :$port" | grep -q . || { echo "$port"; return; }
  done
  fail "no free port found"
}
port=$(free_port)

preflight() { run_ssh -w "$hosts" preflight --port "$port" "$@"; }

# line_of CHECK: the lines of $out about CHECK (after its tag).
line_of() { grep -E "^(ok  |FAIL|n/a ) $1" <<< "$out"; }
