# SIGHUP (the terminal or the ssh session pdx runs in went away) stops every command like Ctrl-C.
source "$(dirname "$0")/../lib/common.sh"

nap="90.$$"
"$PDX" -R exec -w 'h[1-3]' "sleep $nap" </dev/null >/dev/null 2>"$SCRATCH/err" &
pid=$!
wait_for_processes "sleep $nap" 3
kill -HUP $pid
wait $pid
status=$?
expect_status 130
sleep 0.3
pgrep -f "sleep $nap" >/dev/null && fail "commands survived SIGHUP"
true
