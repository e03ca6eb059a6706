# Ctrl-C (SIGINT) during a run over ssh: pdx ends promptly, names the hosts that did not
# finish, exits 130, and the hosts kill the commands it cut short (with what they started).
source "$(dirname "$0")/../lib/ssh_common.sh"

nap="30.$$"  # a sleep only this test starts: the hosts are this machine, so pgrep sees them
"$PDX" -F "$CONFIG" -w "$(host 1),$(host 2),$(host 3)" \
  "if [ \$PDX_RANK = 0 ]; then echo done; else sleep $nap & sleep $nap; fi" \
  < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
pid=$!
for _ in $(seq 50); do [[ -s $SCRATCH/out ]] && break; sleep 0.1; done
sleep 0.5
start_ms=$(( $(date +%s%N) / 1000000 ))
kill -INT "$pid"
wait "$pid"
status=$?
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
err=$(cat "$SCRATCH/err")
expect_status 130
(( elapsed_ms < 3000 )) || fail "pdx took ${elapsed_ms} ms to stop after SIGINT"
expect_eq "$(cat "$SCRATCH/out")" "$(host 1): done" "output"
expect_contains "$err" ": interrupted" "summary"
[[ $err == *"$(host 1)"* ]] && fail "a host that finished is reported as interrupted: $err"
pgrep -f "sleep $nap" > /dev/null && fail "remote commands outlived Ctrl-C: $(pgrep -fa "sleep $nap")"
true
