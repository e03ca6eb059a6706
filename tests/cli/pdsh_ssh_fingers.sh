# What pdsh users type, over ssh (the loopback cluster), pdx as pdsh against Debian's pdsh 2.34
# where installed: ssh:user@host prefixes in -w, a last line without a newline, -S after a
# command killed by a signal and after a -u timeout (255: ssh's), -d's statistics, -q's rcmd.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
h2=$(host 2) h3=$(host 3)
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND="-F $CONFIG"
u3=$(printf 'pdx%03d' 3)
[[ $EUID -eq 0 ]] || u3=$(id -un)  # one shared account when not root

# ssh:user@host: that host's user (%u too); the others the ssh_config's.
run_pdsh -f 1 -w "ssh:$u3@$h3" 'id -un; echo %u; printf abc'
expect_status 0
expect_eq "$out" "$(printf '%s: %s\n%s: %s\n%s: abc' "$h3" "$u3" "$h3" "$u3" "$h3")"
if [[ -n $REAL_PDSH ]]; then
  mine=$out
  run_real_pdsh -f 1 -w "ssh:$u3@$h3" 'id -un; echo %u; printf abc'
  expect_eq "$mine" "$real_out" "vs pdsh"
fi

# -S: a command killed by a signal is ssh's 255; a -u timeout too.
run_pdsh -S -w "$h2" 'kill -9 $$'
expect_status 255
expect_eq "$err" "pdsh@$node: $h2: ssh exited with exit code 255"
run_pdsh -S -u 1 -w "$h2" 'sleep 5'
expect_status 255
expect_contains "$err" "pdsh@$node: $h2: command timeout"

# -d: pdsh's three lines at the end.
run_pdsh -d -w "$h2,$h3" true
expect_status 0
expect_eq "$(sed 's/[0-9]\+ sec/N sec/g' <<< "$err")" $'Connect time:  Avg: N sec, Min: N sec,  Max: N sec\nCommand time:  Avg: N sec, Min: N sec,  Max: N sec\nFailures:      0'

# -q names ssh as the rcmd module and the hosts as given.
run_pdsh -w "ssh:$u3@$h3,$h2" -q
expect_contains "$out" $'Rcmd type\t\tssh'
expect_eq "$(tail -1 <<< "$out")" "127.0.0.[3,2]"  # folded as pdsh folds them
true
