# Bad usage: one clear line on stderr, exit 2, nothing run.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec -w a
expect_usage_error
expect_contains "$err" "no command"

run_pdx -R exec -w 'node[1-' "touch $SCRATCH/ran"
expect_usage_error
run_pdx -R bogus -w a "touch $SCRATCH/ran"
expect_usage_error
run_pdx -R exec -w a -b --json "touch $SCRATCH/ran"
expect_usage_error
run_pdx -R exec -w a -f 0 "touch $SCRATCH/ran"
expect_usage_error
run_pdx -R exec -w a --no-such-flag "touch $SCRATCH/ran"
expect_usage_error
env -u PDX_HOSTS -u WCOLL "$PDX" -R exec "touch $SCRATCH/ran" </dev/null 2>/dev/null
[[ $? -eq 2 ]] || fail "no hosts at all should be a usage error"
[[ -e "$SCRATCH/ran" ]] && fail "a command ran despite a usage error"

run_pdx --help
expect_status 0
expect_contains "$out" "-w"
run_pdx --version
expect_status 0
expect_contains "$out" "pdx "
