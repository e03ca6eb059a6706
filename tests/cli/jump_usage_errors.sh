# Jump host and ProxyCommand options pdx cannot honour are usage errors, one line, before any
# host is reached; never ignored (pdx once connected directly whatever ProxyJump said).
source "$(dirname "$0")/../lib/common.sh"
printf 'Host *\n  StrictHostKeyChecking yes\n' > "$SCRATCH/config"

run_pdx -F "$SCRATCH/config" -J 'a,,b' -w 198.18.0.1 true
expect_usage_error
expect_eq "$err" "pdx: error: -J: bad ProxyJump hop '' (expected [user@]host[:port])" "-J with an empty hop"
run_pdx -F "$SCRATCH/config" -o ProxyJump=gw:0 -w 198.18.0.1 true
expect_usage_error
expect_contains "$err" "bad ProxyJump hop 'gw:0'" "a bad port"
run_pdx -F "$SCRATCH/config" -o 'ProxyCommand=nc %h %k' -w 198.18.0.1 true
expect_usage_error
expect_contains "$err" "ProxyCommand token '%k' is not one pdx expands" "an unknown token"
run_pdx -F "$SCRATCH/config" -o ProxyUseFdpass=yes -w 198.18.0.1 true
expect_usage_error
printf 'Host *\n  ProxyJump a,none\n' > "$SCRATCH/bad_config"
run_pdx -F "$SCRATCH/bad_config" -w 198.18.0.1 true
expect_usage_error
expect_contains "$err" "bad_config:2: ProxyJump none cannot be one hop of a list" "in a file"
run_pdx -R exec -J gw -w a "touch $SCRATCH/ran"
expect_usage_error
expect_contains "$err" "-J reaches hosts over ssh"
[[ -e "$SCRATCH/ran" ]] && fail "a command ran despite a usage error"
true
