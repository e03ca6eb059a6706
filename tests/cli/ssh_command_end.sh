# How a command ends: killed by a signal (status 128+n, named), or still running at -u (ended
# there, 255, and killed on the host).
source "$(dirname "$0")/../lib/ssh_common.sh"

run_ssh -w "$(host 1)" 'echo before; kill -KILL $$'
expect_status 137
expect_eq "$out" "$(host 1): before"
expect_contains "$err" "pdx: $(host 1): killed by signal KILL" "summary"

start=$(date +%s)
nap="30.$$"  # a sleep only this test starts: the hosts are this machine, so pgrep sees them
run_ssh -u 1 -w "$(host 1),$(host 2)" "if [ \$PDX_RANK = 0 ]; then echo quick; else sleep $nap & sleep $nap; fi"
elapsed=$(( $(date +%s) - start ))
expect_status 255
expect_eq "$out" "$(host 1): quick"
expect_contains "$err" "pdx: $(host 2): command timed out after 1s" "summary"
(( elapsed < 10 )) || fail "-u 1 took ${elapsed}s"
# The host kills the command (and what it started) itself, shortly after pdx gave up on it.
for _ in $(seq 60); do pgrep -f "sleep $nap" >/dev/null || break; sleep 0.1; done
pgrep -f "sleep $nap" >/dev/null && fail "the remote command outlived -u"

# Without -u, nothing is wrapped: the exit status and signal are the command's own.
run_ssh -w "$(host 1)" 'exit 7'
expect_status 7
true
