# Shared by tests/cli/ssh_preflight_*.sh: 8 hosts of the loopback cluster (41-48, the master and
# first host 127.0.0.41), a directory of this test's own in each host's home ($dir, removed at the
# end), a free port for the master's, and `preflight ARGS...` running pdx preflight on them.
source "$(dirname "${BASH_SOURCE[0]}")/cluster_job.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"

PF_HOSTS=()
for n in $(seq 41 48); do PF_HOSTS+=("$(host "$n")"); done
hosts=$(IFS=,; echo "${PF_HOSTS[*]}")
dir=pdx-test-$TEST_NAME-$$
job_dirs "$dir" $(seq 41 48)
port=$(free_port)

preflight() { run_ssh -w "$hosts" preflight --port "$port" "$@"; }

# line_of CHECK: the lines of $out about CHECK (after its tag).
line_of() { grep -E "^(ok  |FAIL|n/a ) $1" <<< "$out"; }
