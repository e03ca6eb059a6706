# -E and --env-file values arrive literally, however hostile; bad names are usage errors.
source "$(dirname "$0")/../lib/common.sh"

hostile=$'it\'s "$(touch '"$SCRATCH"$'/pwned)" `id` \\n\nsecond line'
run_pdx -R exec -w a -E "V=$hostile" 'printf "%s" "$V"'
expect_status 0
expect_eq "$out" "a: ${hostile//$'\n'/$'\na: '}" "value"
[[ -e "$SCRATCH/pwned" ]] && fail "a -E value was executed"

printf '# comment\nexport A=1\nB=two words\n' >"$SCRATCH/env"
run_pdx -R exec -w a --env-file "$SCRATCH/env" -E A=override 'echo "$A/$B"'
expect_eq "$out" "a: override/two words"

run_pdx -R exec -w a -E '1BAD=x' true
expect_usage_error
run_pdx -R exec -w a --env-file "$SCRATCH/missing" true
expect_usage_error
