# How a command ends: killed by a signal (status 128+n, named), or still running at -u (ended
# there, 255).
source "$(dirname "$0")/../lib/ssh_common.sh"

run_ssh -w "$(host 1)" 'echo before; kill -KILL $$'
expect_status 137
expect_eq "$out" "$(host 1): before"
expect_contains "$err" "pdx: $(host 1): killed by signal KILL" "summary"

start=$(date +%s)
run_ssh -u 1 -w "$(host 1),$(host 2)" 'if [ $PDX_RANK = 0 ]; then echo quick; else sleep 30; fi'
elapsed=$(( $(date +%s) - start ))
expect_status 255
expect_eq "$out" "$(host 1): quick"
expect_contains "$err" "pdx: $(host 2): command timed out after 1s" "summary"
(( elapsed < 10 )) || fail "-u 1 took ${elapsed}s"
true
