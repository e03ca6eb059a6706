# A jump host that accepts and never answers: every host behind it fails at the connect timeout
# with one line naming the hop; Ctrl-C meanwhile ends the run at once, not at the jump host's
# deadline.
source "$(dirname "$0")/../lib/ssh_common.sh"
hold_port
at_exit release_port
hosts="$(host 2),$(host 3),$(host 4)"

SECONDS=0
run_ssh -t 2 -J "127.0.0.1:$held_port" -w "$hosts" true
expect_status 255
expect_eq "$err" "pdx: 127.0.0.[2-4]: via 127.0.0.1:$held_port: connect timed out after 2s" "a hung jump host"
(( SECONDS < 8 )) || fail "a hung jump host took ${SECONDS}s with -t 2"

"$PDX" -F "$CONFIG" -t 60 -J "127.0.0.1:$held_port" -w "$hosts" true < /dev/null > /dev/null 2> "$SCRATCH/err" &
pdx=$!
sleep 1
kill -INT $pdx
SECONDS=0
wait $pdx
status=$?
expect_status 130
(( SECONDS < 5 )) || fail "Ctrl-C took ${SECONDS}s while the jump host was hung"
expect_eq "$(cat "$SCRATCH/err")" "pdx: 127.0.0.[2-4]: interrupted" "Ctrl-C"
true
