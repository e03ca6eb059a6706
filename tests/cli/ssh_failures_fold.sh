# Hosts that fail alike fold into one summary line: no failure message holds the host's own
# name or address (the summary line names the hosts).
source "$(dirname "$0")/../lib/ssh_common.sh"

# 64 addresses where nothing listens: one line, not 64.
run_ssh -t 5 -w '127.0.3.[1-64]' true
expect_status 255
expect_eq "$err" "pdx: 127.0.3.[1-64]: connect to port $CLUSTER_PORT: Connection refused" "summary"

# Hosts whose key is not known: one line for both.
config=$(config_with_known_hosts)
run_pdx -F "$config" -w "$(host 1),$(host 2)" true
expect_status 255
expect_lines "$err" 1 "summary"
expect_contains "$err" "pdx: 127.0.0.[1-2]: host key is not known (" "summary"
true
